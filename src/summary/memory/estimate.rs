//! [`estimate`]: the KV cache llama.cpp allocates for a GGUF decoder at a context length, in
//! steps that each read one part of the hyper-parameters (see the module above for the sources):
//! refusals for models without a KV cache, the attention shape, which layers keep a cache, the
//! sliding window, the bytes per layer, then the formula and the window's split.

use super::swa::sliding_window;
use super::{
    key, per_layer, EstimateError, KvType, MemoryEstimate, OwnCache, SlidingWindow, SwaRule,
    CELL_PAD, DEDICATED_CACHE, NO_CACHE, N_SEQ_MAX, N_UBATCH, RECURRENT_OR_HYBRID, SWA_RULES,
};
use crate::format::{Model, Value};
use crate::open::OpenedModel;

/// The required key `{arch}.{k}`.
fn need<'a>(m: &'a Model, arch: &str, k: &'static str) -> Result<&'a Value, EstimateError> {
    key(m, arch, k).ok_or_else(|| EstimateError::MissingKey {
        arch: arch.to_string(),
        key: k,
    })
}

/// The required integer `{arch}.{k}` (the message on a non-integer names it `k` alone).
fn need_u64(m: &Model, arch: &str, k: &'static str) -> Result<u64, EstimateError> {
    need(m, arch, k)?
        .as_u64()
        .ok_or_else(|| EstimateError::NotInteger { key: k.to_string() })
}

/// Estimates memory for `m` at `context` tokens (default: the model's own
/// `{arch}.context_length`) with a `kv` cache. `Err` says why there is no estimate.
pub fn estimate(
    m: &OpenedModel,
    context: Option<u64>,
    kv: KvType,
) -> Result<MemoryEstimate, EstimateError> {
    let arch = architecture(m)?;
    let shape = Shape::read(m, &arch)?;
    let mut notes = vec![
        "weights as stored in the file; compute buffers, the output buffer and runtime overhead are not included"
            .to_string(),
    ];
    let ctx = match context {
        Some(c) => c,
        None => need_u64(m, &arch, "context_length")?,
    };
    if ctx == 0 {
        return Err(EstimateError::ZeroContext);
    }
    let cells = pad(ctx)?;
    if cells != ctx {
        notes.push(format!(
            "{ctx} tokens are {cells} cells: llama.cpp rounds the context up to a multiple of {CELL_PAD} (llama_context)"
        ));
    }
    let rule = SWA_RULES.iter().find(|r| r.arch == arch);
    let own = own_caches(m, &arch, shape.layers, rule, &mut notes);
    let swa = window(m, &arch, shape.layers, rule, &mut notes);
    let swa_cells = match &swa {
        Some((w, _, _)) => {
            let want = w
                .checked_mul(N_SEQ_MAX)
                .and_then(|x| x.checked_add(N_UBATCH))
                .ok_or(EstimateError::Overflow)?;
            pad(want.min(cells))?
        }
        None => cells,
    };
    let is_swa: Vec<bool> = (0..shape.layers as usize)
        .map(|il| swa.as_ref().is_some_and(|(_, s, _)| s[il]))
        .collect();
    let (dk_swa, dv_swa) = if swa.is_some() && !shape.mla {
        (
            dim(m, &arch, "attention.key_length_swa", Some(shape.dk))?,
            dim(m, &arch, "attention.value_length_swa", Some(shape.dv))?,
        )
    } else {
        (shape.dk, shape.dv)
    };

    let mut kv_per_layer = Vec::with_capacity(shape.layers as usize);
    let mut full_per_layer = Vec::with_capacity(shape.layers as usize);
    for (il, &h) in shape.kv_heads.iter().enumerate() {
        if !own[il] {
            kv_per_layer.push(0);
            full_per_layer.push(0);
            continue;
        }
        let (k, v, c) = if is_swa[il] {
            (dk_swa, dv_swa, swa_cells)
        } else {
            (shape.dk, shape.dv, cells)
        };
        kv_per_layer.push(layer_bytes(kv, h, k, v, c).ok_or(EstimateError::Overflow)?);
        full_per_layer.push(layer_bytes(kv, h, k, v, cells).ok_or(EstimateError::Overflow)?);
    }
    let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
    let kv_bytes = sum(&kv_per_layer).ok_or(EstimateError::Overflow)?;
    let kv_full_context_bytes = sum(&full_per_layer).ok_or(EstimateError::Overflow)?;
    let weights_bytes = weights(m, &mut notes);

    let groups = if swa.is_some() {
        vec![
            Group {
                label: "full-attention ",
                layers: layers_where(&own, |il| !is_swa[il]),
                cells,
                dk: shape.dk,
                dv: shape.dv,
            },
            Group {
                label: "sliding-window ",
                layers: layers_where(&own, |il| is_swa[il]),
                cells: swa_cells,
                dk: dk_swa,
                dv: dv_swa,
            },
        ]
    } else {
        vec![Group {
            label: "",
            layers: layers_where(&own, |_| true),
            cells,
            dk: shape.dk,
            dv: shape.dv,
        }]
    };
    let formula = formula(&groups, &shape, kv, kv_bytes);
    if shape.mla {
        notes.push(mla_note(m, &arch, &shape));
    }
    let sliding_window = swa.map(|(window, layers_swa, how)| {
        let split = Split {
            window,
            chunked: rule.is_some_and(|r| r.chunked),
            cells,
            swa_cells,
            kv_full_context_bytes,
            layers: shape.layers,
        };
        split.of(&own, &kv_per_layer, layers_swa, how, &mut notes)
    });
    Ok(MemoryEstimate {
        architecture: arch,
        weights_bytes,
        context: ctx,
        cells,
        kv_type: kv,
        kv_bytes,
        total_bytes: weights_bytes.saturating_add(kv_bytes),
        kv_per_layer,
        kv_full_context_bytes,
        sliding_window,
        mla: shape.mla,
        formula,
        notes,
    })
}

/// `n` rounded up to a multiple of [`CELL_PAD`] (`GGML_PAD`).
fn pad(n: u64) -> Result<u64, EstimateError> {
    n.div_ceil(CELL_PAD)
        .checked_mul(CELL_PAD)
        .ok_or(EstimateError::Overflow)
}

/// The architecture of a GGUF decoder that has a KV cache llama.cpp sizes as here; `Err` for any
/// other file, and for the architectures without such a cache (recurrent and hybrid models,
/// encoders and non-causal models, dedicated caches).
fn architecture(m: &Model) -> Result<String, EstimateError> {
    if m.format != crate::format::Format::Gguf {
        return Err(EstimateError::NotGguf {
            format: m.format.name(),
        });
    }
    let arch = m
        .get("general.architecture")
        .and_then(Value::as_str)
        .ok_or(EstimateError::NoArchitecture)?
        .to_string();
    if RECURRENT_OR_HYBRID.contains(&arch.as_str())
        || key(m, &arch, "ssm.state_size").is_some()
        || key(m, &arch, "wkv.head_size").is_some()
    {
        return Err(EstimateError::Recurrent { arch });
    }
    if NO_CACHE.contains(&arch.as_str())
        || key(m, &arch, "attention.causal") == Some(&Value::Bool(false))
    {
        let weights = m.error.is_none().then(|| {
            m.tensors
                .iter()
                .filter_map(|t| t.bytes)
                .fold(0u64, u64::saturating_add)
        });
        return Err(EstimateError::NoCache { arch, weights });
    }
    if DEDICATED_CACHE.contains(&arch.as_str()) {
        return Err(EstimateError::DedicatedCache { arch });
    }
    Ok(arch)
}

/// A head dimension `{arch}.{k}`, or `default` when the key is absent.
fn dim(m: &Model, arch: &str, k: &'static str, default: Option<u64>) -> Result<u64, EstimateError> {
    match key(m, arch, k) {
        Some(v) => v.as_u64().ok_or_else(|| EstimateError::NotInteger {
            key: format!("{arch}.{k}"),
        }),
        None => default.ok_or_else(|| EstimateError::NoHeadDim {
            arch: arch.to_string(),
            key: k,
        }),
    }
}

/// The attention's shape: layers, KV heads per layer, head dimensions, multi-head latent
/// attention.
struct Shape {
    /// `block_count`: 1 ..= 100,000.
    layers: u64,
    /// KV heads of each layer (`head_count_kv`, else `head_count`).
    kv_heads: Vec<u64>,
    /// Multi-head latent attention (`llama_hparams::is_mla`): K only.
    mla: bool,
    /// `kv_lora_rank`, when present.
    lora: Option<u64>,
    /// Values per K head (the compressed row under MLA).
    dk: u64,
    /// Values per V head (0 under MLA).
    dv: u64,
}

impl Shape {
    fn read(m: &Model, arch: &str) -> Result<Shape, EstimateError> {
        let layers = need_u64(m, arch, "block_count")?;
        if layers == 0 || layers > 100_000 {
            return Err(EstimateError::BlockCount(layers));
        }
        let heads = per_layer(
            m,
            need(m, arch, "attention.head_count")?,
            layers,
            "head_count",
        )?;
        let kv_heads = match key(m, arch, "attention.head_count_kv") {
            Some(v) => per_layer(m, v, layers, "head_count_kv")?,
            None => heads.clone(),
        };
        // Multi-head latent attention (llama_hparams::is_mla): K only.
        let mla_k = key(m, arch, "attention.key_length_mla");
        let mla_v = key(m, arch, "attention.value_length_mla");
        let lora = key(m, arch, "attention.kv_lora_rank").and_then(Value::as_u64);
        let mla = match (mla_k.is_some(), mla_v.is_some()) {
            (true, true) => true,
            (false, false) if lora.is_some() => {
                return Err(EstimateError::MlaUnmarked {
                    arch: arch.to_string(),
                })
            }
            (false, false) => false,
            (k, _) => {
                return Err(EstimateError::MlaKeyMissing {
                    arch: arch.to_string(),
                    key: if k {
                        "value_length_mla"
                    } else {
                        "key_length_mla"
                    },
                })
            }
        };
        let embd = key(m, arch, "embedding_length").and_then(Value::as_u64);
        // llama_model::load_hparams: n_embd / n_head(0).
        let default_dim = embd
            .zip(heads.first().copied().filter(|&h| h > 0))
            .map(|(e, h)| e / h);
        let (dk, dv) = if mla {
            let dk = need(m, arch, "attention.key_length")?
                .as_u64()
                .ok_or_else(|| EstimateError::NotInteger {
                    key: format!("{arch}.attention.key_length"),
                })?;
            (dk, 0)
        } else {
            (
                dim(m, arch, "attention.key_length", default_dim)?,
                dim(m, arch, "attention.value_length", default_dim)?,
            )
        };
        Ok(Shape {
            layers,
            kv_heads,
            mla,
            lora,
            dk,
            dv,
        })
    }
}

/// Per layer, whether it keeps a cache of its own: not the layers that reuse earlier layers'
/// caches (`llama_hparams::has_kv`) nor the multi-token-prediction layers
/// (`nextn_predict_layers`), each said in `notes`.
fn own_caches(
    m: &Model,
    arch: &str,
    layers: u64,
    rule: Option<&SwaRule>,
    notes: &mut Vec<String>,
) -> Vec<bool> {
    let mut own = vec![true; layers as usize];
    let from_start = match rule.map(|r| r.own_cache) {
        Some(OwnCache::First(n)) => Some(n),
        Some(OwnCache::SharedKey) => Some(
            layers.saturating_sub(
                key(m, arch, "attention.shared_kv_layers")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
            ),
        ),
        _ => None,
    };
    if let Some(n) = from_start.filter(|&n| n < layers) {
        own[n as usize..].iter_mut().for_each(|o| *o = false);
        notes.push(format!(
            "layers {n} to {} reuse the caches of earlier layers and keep none of their own (llama_hparams::has_kv)",
            layers - 1
        ));
    }
    let nextn = key(m, arch, "nextn_predict_layers")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if nextn > 0 && nextn < layers {
        own[(layers - nextn) as usize..]
            .iter_mut()
            .for_each(|o| *o = false);
        notes.push(format!(
            "the last {nextn} layer(s) predict further tokens ({arch}.nextn_predict_layers) and have no cache in the main context (llama_model::create_memory)"
        ));
    }
    own
}

/// The sliding window llama.cpp uses for this file: (window, per-layer use, where the pattern
/// came from), or `None` (every layer at the full context), with the reason in `notes`.
fn window(
    m: &Model,
    arch: &str,
    layers: u64,
    rule: Option<&SwaRule>,
    notes: &mut Vec<String>,
) -> Option<(u64, Vec<bool>, String)> {
    match rule {
        Some(r) => match sliding_window(m, arch, layers, r, notes) {
            Ok(s) => s,
            Err(why) => {
                notes.push(format!(
                    "{why}; every layer is counted at the full context (an upper bound)"
                ));
                None
            }
        },
        None => {
            if let Some(w) = key(m, arch, "attention.sliding_window").and_then(Value::as_u64) {
                notes.push(if arch == "phi3" {
                    format!(
                        "the file has a sliding window of {w} tokens, but llama.cpp switches it off for phi3 (models/phi3.cpp), so every layer caches the full context"
                    )
                } else {
                    format!(
                        "the model has a sliding window of {w} tokens, but llama.cpp sets no per-layer window pattern for {arch}, so every layer is counted at the full context (what llama.cpp allocates; an upper bound for a runtime that uses the window)"
                    )
                });
            }
            None
        }
    }
}

/// K+V bytes of one layer: `c` cells × (row(`h`×`k`) + row(`h`×`v`)); `None` on overflow.
fn layer_bytes(kv: KvType, h: u64, k: u64, v: u64, c: u64) -> Option<u64> {
    let kb = kv.row_bytes(h.checked_mul(k)?)?;
    let vb = kv.row_bytes(h.checked_mul(v)?)?;
    c.checked_mul(kb.checked_add(vb)?)
}

/// Bytes of all tensors as stored, with a note when they are not the whole model's.
fn weights(m: &OpenedModel, notes: &mut Vec<String>) -> u64 {
    let weights_bytes = m
        .tensors
        .iter()
        .filter_map(|t| t.bytes)
        .fold(0u64, u64::saturating_add);
    if m.tensors.is_empty() {
        notes.push(
            "this file holds no tensors (a vocabulary or metadata-only file): the weights are 0 and only the KV cache is estimated"
                .into(),
        );
    }
    if let Some(set) = m
        .set
        .as_ref()
        .filter(|s| !s.kind.is_empty() && !s.complete())
    {
        notes.push(format!(
            "the weights are those of the {} of the model's {} files read, not the whole model's",
            set.files_read.len(),
            set.files_expected
        ));
    }
    weights_bytes
}

/// The layers (indices) that keep a cache and satisfy `pick`.
fn layers_where(own: &[bool], pick: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..own.len()).filter(|&il| own[il] && pick(il)).collect()
}

/// One term of the formula: a group of layers with the same cells and head dimensions.
struct Group {
    label: &'static str,
    layers: Vec<usize>,
    cells: u64,
    dk: u64,
    dv: u64,
}

/// `KV = 18 layers × 32768 cells × 1 KV heads × (256 + 256) dims × 2 B = … bytes`, one term
/// per non-empty group.
fn formula(groups: &[Group], shape: &Shape, kv: KvType, kv_bytes: u64) -> String {
    let per_value = match kv {
        KvType::F16 => "2 B".to_string(),
        _ => {
            let (bb, bv) = kv.block();
            format!("{bb}/{bv} B")
        }
    };
    let terms: Vec<String> = groups
        .iter()
        .filter(|g| !g.layers.is_empty())
        .map(|g| {
            let hs: Vec<u64> = g.layers.iter().map(|&il| shape.kv_heads[il]).collect();
            let heads_text = if hs.windows(2).all(|w| w[0] == w[1]) {
                hs[0].to_string()
            } else {
                "n_head_kv[l]".to_string()
            };
            let dims = if shape.mla {
                format!("{} K dims (MLA: no V cache)", g.dk)
            } else {
                format!("({} + {}) dims", g.dk, g.dv)
            };
            format!(
                "{} {}layers × {} cells × {heads_text} KV heads × {dims} × {per_value}",
                g.layers.len(),
                g.label,
                g.cells
            )
        })
        .collect();
    format!("KV = {} = {kv_bytes} bytes", terms.join(" + "))
}

/// The note on a multi-head-latent-attention cache.
fn mla_note(m: &Model, arch: &str, shape: &Shape) -> String {
    let rope = key(m, arch, "rope.dimension_count").and_then(Value::as_u64);
    let dk = shape.dk;
    match (shape.lora, rope) {
        (Some(l), Some(r)) => format!(
            "multi-head latent attention: each layer caches one compressed K row of kv_lora_rank {l} + rope {r} = {} values per token (key_length {dk}), and llama.cpp keeps no V cache (V is read from K)",
            u128::from(l) + u128::from(r)
        ),
        _ => format!(
            "multi-head latent attention: each layer caches one compressed K row of key_length {dk} values per token, and llama.cpp keeps no V cache (V is read from K)"
        ),
    }
}

/// What the sliding-window split is made from.
struct Split {
    window: u64,
    chunked: bool,
    cells: u64,
    swa_cells: u64,
    kv_full_context_bytes: u64,
    layers: u64,
}

impl Split {
    /// The split of the layers' bytes between full attention and the window, with its note.
    fn of(
        &self,
        own: &[bool],
        kv_per_layer: &[u64],
        layers_swa: Vec<bool>,
        how: String,
        notes: &mut Vec<String>,
    ) -> SlidingWindow {
        let (mut full_layers, mut swa_layers, mut full_bytes, mut swa_bytes) = (0, 0, 0u64, 0u64);
        for (il, &b) in kv_per_layer.iter().enumerate() {
            if !own[il] {
                continue;
            }
            if layers_swa[il] {
                swa_layers += 1;
                swa_bytes += b;
            } else {
                full_layers += 1;
                full_bytes += b;
            }
        }
        let kind = if self.chunked {
            "chunked attention (chunk"
        } else {
            "sliding window (window"
        };
        let Split {
            window,
            cells,
            swa_cells,
            kv_full_context_bytes,
            layers,
            ..
        } = *self;
        notes.push(format!(
            "{kind} {window} tokens) on {swa_layers} of {layers} layers ({how}); those layers cache min({cells}, {window} × n_seq_max {N_SEQ_MAX} + n_ubatch {N_UBATCH}) rounded up to a multiple of {CELL_PAD} = {swa_cells} cells (llama_kv_cache_iswa, llama-cli/llama-server defaults, swa_full off); with every layer at the full context: {kv_full_context_bytes} bytes"
        ));
        SlidingWindow {
            window,
            chunked: self.chunked,
            cells: swa_cells,
            n_ubatch: N_UBATCH,
            n_seq_max: N_SEQ_MAX,
            layers: layers_swa,
            full_layers,
            swa_layers,
            full_bytes,
            swa_bytes,
            pattern: how,
        }
    }
}
