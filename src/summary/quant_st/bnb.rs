//! bitsandbytes: 4-bit NF4 / FP4 (`X.weight` U8 with `absmax`, `quant_map` and the
//! `quant_state` JSON of `QuantState.as_dict`) and LLM.int8() (`X.weight` I8 with `SCB`).

use std::fmt;

use serde_json::Value as Json;

use super::ctx::{elements, shape_text, Ctx};
use super::Scheme;

/// Why a bitsandbytes `quant_state` JSON could not be read.
#[derive(Debug)]
pub(super) enum BnbStateError {
    /// The bytes are not JSON.
    NotJson(serde_json::Error),
    /// No `"shape"` array.
    NoShape,
    /// A dimension of `"shape"` is not a non-negative integer.
    Dimension,
}

impl fmt::Display for BnbStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BnbStateError::NotJson(e) => write!(f, "not JSON: {e}"),
            BnbStateError::NoShape => f.write_str("no \"shape\" array"),
            BnbStateError::Dimension => f.write_str("a dimension is not a non-negative integer"),
        }
    }
}

impl std::error::Error for BnbStateError {}

/// What a bitsandbytes `quant_state` JSON says (bitsandbytes `QuantState.as_dict`).
#[derive(Debug, PartialEq)]
pub(super) struct BnbState {
    /// The original weight's shape.
    pub(super) shape: Vec<u64>,
    /// Values per absmax block.
    pub(super) blocksize: Option<u64>,
    /// `nf4` or `fp4`.
    pub(super) quant_type: Option<String>,
}

/// Parses a bitsandbytes `quant_state` JSON.
pub(super) fn bnb_state(bytes: &[u8]) -> Result<BnbState, BnbStateError> {
    let v: Json = serde_json::from_slice(bytes).map_err(BnbStateError::NotJson)?;
    let shape = v
        .get("shape")
        .and_then(Json::as_array)
        .ok_or(BnbStateError::NoShape)?
        .iter()
        .map(|d| d.as_u64().ok_or(BnbStateError::Dimension))
        .collect::<Result<Vec<u64>, _>>()?;
    let block = v.get("blocksize").and_then(Json::as_u64);
    let qt = v
        .get("quant_type")
        .and_then(Json::as_str)
        .map(str::to_string);
    Ok(BnbState {
        shape,
        blocksize: block,
        quant_type: qt,
    })
}

/// bitsandbytes 4-bit `prefix.weight` (U8, two values a byte).
pub(super) fn bnb4(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let companions = cx.companions(
        prefix,
        &[
            (".weight.absmax", "absmax"),
            (".weight.quant_map", "quant_map"),
            (".weight.nested_absmax", "nested absmax"),
            (".weight.nested_quant_map", "nested quant_map"),
            (".weight.quant_state.bitsandbytes__nf4", "quant_state"),
            (".weight.quant_state.bitsandbytes__fp4", "quant_state"),
        ],
    );
    let state = companions.iter().find(|c| c.role == "quant_state");
    let scheme = match state.map(|c| c.name.as_str()) {
        Some(n) if n.ends_with("nf4") => Scheme::BnbNf4,
        Some(_) => Scheme::BnbFp4,
        None => {
            cx.warn(
                "quant-companion-missing",
                "no weight.quant_state.bitsandbytes__nf4 / __fp4 beside a bitsandbytes 4-bit weight".into(),
                &wname,
            );
            Scheme::Bnb4
        }
    };
    let nested = companions.iter().any(|c| c.role == "nested absmax");
    let Some(packed) = w.elements.filter(|_| Ctx::dtype(w) == "U8") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "a bitsandbytes 4-bit weight is U8; this one is {} {}; counted as stored",
                Ctx::dtype(w),
                shape_text(&w.shape)
            ),
            &wname,
        );
        return;
    };
    let from_state = state.and_then(|c| {
        cx.m.sidecar
            .tensor_data
            .get(&c.name)
            .map(|b| (c.name.clone(), bnb_state(b)))
    });
    let (shape, source, mut block) = match from_state {
        Some((
            _,
            Ok(BnbState {
                shape,
                blocksize: block,
                ..
            }),
        )) if elements(&shape).is_some_and(|n| n.div_ceil(2) == packed) => {
            (shape, "quant_state", block)
        }
        other => {
            match other {
                Some((name, Ok(BnbState { shape, .. }))) => cx.warn(
                    "quant-shape-mismatch",
                    format!(
                        "{name} says shape {} but the weight holds {packed} bytes; counted from the bytes",
                        shape_text(&shape)
                    ),
                    &wname,
                ),
                Some((name, Err(e))) => cx.warn(
                    "quant-state-unreadable",
                    format!("{name}: {e}; counted from the bytes"),
                    &wname,
                ),
                None => cx.info(
                    "quant-derived",
                    "logical size taken as packed bytes × 2 (the exact shape is in the quant_state tensor's data, which was not read)".into(),
                    &wname,
                ),
            }
            let Some(n) = packed.checked_mul(2) else {
                return;
            };
            (vec![n], "packed bytes × 2", None)
        }
    };
    let n = elements(&shape).unwrap_or(0);
    if block.is_none() {
        let absmax = companions
            .iter()
            .find(|c| c.role == "absmax")
            .and_then(|c| cx.get(&c.name))
            .and_then(|(_, t)| t.elements);
        block = absmax.filter(|&a| a > 0 && n % a == 0).map(|a| n / a);
    }
    let mut granularity = block.map_or(String::new(), |b| format!("block size {b}"));
    if nested {
        granularity.push_str(if granularity.is_empty() {
            "nested absmax"
        } else {
            ", nested absmax"
        });
    }
    cx.push(
        wi,
        wname,
        scheme,
        shape,
        source,
        4,
        block,
        granularity,
        companions,
    );
}

/// bitsandbytes LLM.int8() `prefix.weight` (I8) with `prefix.SCB`.
pub(super) fn bnb8(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let companions = cx.companions(
        prefix,
        &[
            (".SCB", "row scales (SCB)"),
            (".weight_format", "weight_format"),
        ],
    );
    cx.push(
        wi,
        w.name.clone(),
        Scheme::BnbInt8,
        w.shape.clone(),
        "header",
        8,
        None,
        "per-row scales".into(),
        companions,
    );
}
