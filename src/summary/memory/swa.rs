//! The sliding-window rules: which architectures' loaders set a window, with the layer pattern,
//! window size and condition each uses ([`SWA_RULES`], from `llama_model_<arch>::load_arch_hparams`
//! in llama.cpp's src/models/), `llama_hparams::set_swa_pattern` ([`swa_pattern`]), and what
//! llama.cpp does with a given file's window.

use std::fmt;

use super::key;
use crate::format::{Model, Value};

/// Why the sliding-window split of a file is unknown: the estimate then counts every layer at
/// the full context and says why in a note (not a refusal, unlike
/// [`EstimateError`](super::EstimateError)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum WindowError {
    /// `{arch}.attention.sliding_window_pattern` has not one entry per layer.
    PatternEntries {
        /// `general.architecture`.
        arch: String,
        /// Entries in the array.
        len: u64,
        /// `block_count`.
        layers: u64,
    },
    /// The pattern array's elements could not be read.
    PatternRead(crate::format::Error),
    /// The pattern array holds a value that is neither bool nor integer.
    PatternValue {
        /// `general.architecture`.
        arch: String,
    },
    /// The loader needs `{arch}.attention.sliding_window` and the file has none.
    NoWindow {
        /// The loader, `src/models/<file>`.
        file: &'static str,
        /// `general.architecture`.
        arch: String,
    },
    /// The loader reads the pattern from the per-layer array, which the file lacks.
    NoPatternArray {
        /// The loader, `src/models/<file>`.
        file: &'static str,
        /// `general.architecture`.
        arch: String,
    },
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowError::PatternEntries { arch, len, layers } => write!(
                f,
                "{arch}.attention.sliding_window_pattern has {len} entries for {layers} layers"
            ),
            WindowError::PatternRead(e) => write!(f, "{e}"),
            WindowError::PatternValue { arch } => write!(
                f,
                "{arch}.attention.sliding_window_pattern holds a value that is neither bool nor integer"
            ),
            WindowError::NoWindow { file, arch } => write!(
                f,
                "llama.cpp (models/{file}) needs {arch}.attention.sliding_window for {arch} and the file has none"
            ),
            WindowError::NoPatternArray { file, arch } => write!(
                f,
                "llama.cpp (models/{file}) reads which layers use the window from the array {arch}.attention.sliding_window_pattern, which the file lacks"
            ),
        }
    }
}

impl std::error::Error for WindowError {}

/// Which layers an architecture's loader marks as sliding-window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `load_swa_pattern(ml, n, dense_first)`: a per-layer array or a period in
    /// `{arch}.attention.sliding_window_pattern` wins over `n`.
    Period {
        /// The period: every `n`-th layer is a full-attention one.
        n: u64,
        /// Whether the dense (full-attention) layer comes first in each period.
        dense_first: bool,
    },
    /// `ml.get_arr(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hparams.is_swa_impl)`: the
    /// per-layer array is required.
    Array,
}

/// Where an architecture's window size comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// `{arch}.attention.sliding_window`.
    Key,
    /// The key, else this default set in the loader.
    KeyOr(u64),
    /// Set in the loader whatever the key says (the key only switches the window on or off).
    Fixed(u64),
}

/// When the loader turns the window on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enable {
    /// Always (a missing required key makes llama.cpp refuse the file).
    Always,
    /// Only when `{arch}.attention.sliding_window` is present and above 0.
    KeyPositive,
    /// Unless `{arch}.attention.sliding_window` is present and 0 (llama4).
    UnlessKeyZero,
    /// Only for this block count (exaone4: the 32B, 64 layers).
    BlockCount(u64),
}

/// Which layers keep their own cache (`llama_hparams::n_layer_kv_from_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnCache {
    /// Every layer.
    All,
    /// The first N layers (gemma3n: 20); later layers reuse them.
    First(u64),
    /// All but the last `{arch}.attention.shared_kv_layers` (gemma4).
    SharedKey,
}

/// One architecture's sliding-window set-up in llama.cpp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwaRule {
    /// `general.architecture` (llama-arch.cpp `LLM_ARCH_NAMES`).
    pub arch: &'static str,
    /// Its loader, `src/models/<file>`.
    pub file: &'static str,
    /// Which layers use the window.
    pub pattern: Pattern,
    /// Where the window size comes from.
    pub window: Window,
    /// When the loader turns the window on.
    pub enable: Enable,
    /// Which layers keep a KV cache of their own.
    pub own_cache: OwnCache,
    /// Chunked attention (`LLAMA_SWA_TYPE_CHUNKED`); the cache is sized the same way.
    pub chunked: bool,
}

const fn rule(
    arch: &'static str,
    file: &'static str,
    pattern: Pattern,
    window: Window,
    enable: Enable,
) -> SwaRule {
    SwaRule {
        arch,
        file,
        pattern,
        window,
        enable,
        own_cache: OwnCache::All,
        chunked: false,
    }
}

const fn period(n: u64) -> Pattern {
    Pattern::Period {
        n,
        dense_first: false,
    }
}

const fn period_dense_first(n: u64) -> Pattern {
    Pattern::Period {
        n,
        dense_first: true,
    }
}

/// The architectures whose loader (`llama_model_<arch>::load_arch_hparams`, src/models/) sets a
/// sliding window for decoding, with the pattern, window and condition it uses. Encoders with a
/// window (modern-bert, gemma-embedding) keep no KV cache and are not listed; phi3's window is
/// switched off by its loader (see [`estimate`](super::estimate)).
pub const SWA_RULES: [SwaRule; 22] = [
    rule(
        "gemma2",
        "gemma2.cpp",
        period(2),
        Window::KeyOr(4096),
        Enable::Always,
    ),
    rule(
        "gemma3",
        "gemma3.cpp",
        period(6),
        Window::Key,
        Enable::KeyPositive,
    ),
    SwaRule {
        own_cache: OwnCache::First(20),
        ..rule(
            "gemma3n",
            "gemma3n.cpp",
            period(5),
            Window::Key,
            Enable::Always,
        )
    },
    SwaRule {
        own_cache: OwnCache::SharedKey,
        ..rule(
            "gemma4",
            "gemma4.cpp",
            Pattern::Array,
            Window::Key,
            Enable::Always,
        )
    },
    rule(
        "cohere2",
        "cohere2.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "cohere2moe",
        "cohere2moe.cpp",
        period_dense_first(4),
        Window::Key,
        Enable::Always,
    ),
    SwaRule {
        chunked: true,
        ..rule(
            "llama4",
            "llama4.cpp",
            period(4),
            Window::Fixed(8192),
            Enable::UnlessKeyZero,
        )
    },
    rule(
        "gpt-oss",
        "openai-moe.cpp",
        period(2),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "exaone4",
        "exaone4.cpp",
        period(4),
        Window::KeyOr(4096),
        Enable::BlockCount(64),
    ),
    rule(
        "exaone-moe",
        "exaone-moe.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "olmo2",
        "olmo2.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "plamo3",
        "plamo3.cpp",
        period(8),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "afmoe",
        "afmoe.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "smallthinker",
        "smallthinker.cpp",
        period_dense_first(4),
        Window::Fixed(4096),
        Enable::KeyPositive,
    ),
    rule(
        "mellum",
        "mellum.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "muse-glimmer",
        "muse-glimmer.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "laguna",
        "laguna.cpp",
        period_dense_first(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "granite_swa",
        "granite-swa.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "mimo2",
        "mimo2.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "step35",
        "step35.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "maple",
        "maple.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "spark2_5",
        "spark2-5.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
];
/// `llama_hparams::set_swa_pattern`: layer `il` uses the window when `n == 0 ||
/// il % n < n - 1`, or with `dense_first` when `n == 0 || il % n != 0`.
pub fn swa_pattern(layers: u64, n: u64, dense_first: bool) -> Vec<bool> {
    (0..layers)
        .map(|il| {
            n == 0
                || if dense_first {
                    il % n != 0
                } else {
                    il % n < n - 1
                }
        })
        .collect()
}

/// `{arch}.attention.sliding_window_pattern` as a per-layer array (bool or integer entries,
/// non-zero = sliding window), if the file has one.
fn pattern_array(m: &Model, arch: &str, layers: u64) -> Option<Result<Vec<bool>, WindowError>> {
    let Some(Value::Array(a)) = key(m, arch, "attention.sliding_window_pattern") else {
        return None;
    };
    Some((|| {
        if a.len != layers {
            return Err(WindowError::PatternEntries {
                arch: arch.to_string(),
                len: a.len,
                layers,
            });
        }
        a.values(&m.bytes, 0, layers)
            .map_err(WindowError::PatternRead)?
            .iter()
            .map(|x| match x {
                Value::Bool(b) => Ok(*b),
                other => other
                    .as_u64()
                    .map(|n| n != 0)
                    .ok_or_else(|| WindowError::PatternValue {
                        arch: arch.to_string(),
                    }),
            })
            .collect()
    })())
}

/// What llama.cpp does with this file's window: `Ok(Some(..))` the layers and window,
/// `Ok(None)` full attention on every layer (said in `notes`), `Err` the split is unknown
/// (why).
pub(super) fn sliding_window(
    m: &Model,
    arch: &str,
    layers: u64,
    rule: &SwaRule,
    notes: &mut Vec<String>,
) -> Result<Option<(u64, Vec<bool>, String)>, WindowError> {
    let wkey = format!("{arch}.attention.sliding_window");
    let w = key(m, arch, "attention.sliding_window").and_then(Value::as_u64);
    let file = format!("models/{}", rule.file);
    let on = match rule.enable {
        Enable::Always => true,
        Enable::KeyPositive => w.is_some_and(|w| w > 0),
        Enable::UnlessKeyZero => w != Some(0),
        Enable::BlockCount(n) => layers == n,
    };
    if !on {
        notes.push(match rule.enable {
            Enable::BlockCount(n) => format!(
                "{arch} with {layers} layers: llama.cpp ({file}) uses a sliding window only for {n} layers, so every layer caches the full context"
            ),
            _ => format!(
                "{wkey} is {}: llama.cpp ({file}) then uses full attention on every layer",
                w.map_or("absent".to_string(), |w| w.to_string())
            ),
        });
        return Ok(None);
    }
    let window = match rule.window {
        Window::Key => w.ok_or_else(|| WindowError::NoWindow {
            file: rule.file,
            arch: arch.to_string(),
        })?,
        Window::KeyOr(d) => w.unwrap_or(d),
        Window::Fixed(n) => n,
    };
    if let (Window::KeyOr(d), None) = (rule.window, w) {
        notes.push(format!(
            "no {wkey}: llama.cpp's default window for {arch}, {d} tokens ({file})"
        ));
    }
    if let (Window::Fixed(n), Some(w)) = (rule.window, w) {
        if w != n {
            notes.push(format!(
                "{wkey} is {w}, but llama.cpp ({file}) sets the window of {arch} to {n} tokens"
            ));
        }
    }
    let pkey = format!("{arch}.attention.sliding_window_pattern");
    let (swa, how) = match (rule.pattern, pattern_array(m, arch, layers)) {
        (_, Some(Err(why))) => return Err(why),
        (_, Some(Ok(a))) => (a, format!("{file}: the per-layer {pkey}")),
        (Pattern::Array, None) => {
            return Err(WindowError::NoPatternArray {
                file: rule.file,
                arch: arch.to_string(),
            })
        }
        (Pattern::Period { n, dense_first }, None) => {
            let (n, from_key) =
                match key(m, arch, "attention.sliding_window_pattern").and_then(Value::as_u64) {
                    Some(p) => (p, true),
                    None => (n, false),
                };
            let phase = if dense_first {
                "every layer il with il % n = 0 full, the rest sliding-window"
            } else {
                "layers il % n < n − 1 sliding-window, the rest full"
            };
            (
                swa_pattern(layers, n, dense_first),
                format!(
                    "{file}: period n = {n}{}, {phase}",
                    if from_key {
                        format!(" from {pkey}")
                    } else {
                        String::new()
                    }
                ),
            )
        }
    };
    Ok(Some((window, swa, how)))
}
