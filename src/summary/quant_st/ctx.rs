//! The reading state shared by the layout readers: what each tensor counts as ([`Role`]), the
//! findings gathered (`check::quant::Notes`), the per-model context ([`Ctx`]) that records each quantised
//! weight, and small size helpers.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::{Companion, QuantWeight, Scheme};
use crate::check::quant::Notes;
use crate::check::Severity;
use crate::format::{DType, Model, Tensor};
use crate::open::OpenedModel;

/// What a tensor counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Plain,
    /// Packed values of quantised weight `n` of the report.
    Packed(usize),
    Companion,
}

pub(super) fn elements(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
}

pub(super) fn shape_text(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

pub(super) fn bpw(bytes: u64, elements: u64) -> Option<f64> {
    (elements > 0).then(|| bytes as f64 * 8.0 / elements as f64)
}

/// Reading state over one model.
pub(super) struct Ctx<'a> {
    pub(super) m: &'a OpenedModel,
    pub(super) index: HashMap<&'a str, usize>,
    pub(super) roles: Vec<Role>,
    pub(super) weights: Vec<QuantWeight>,
    pub(super) notes: Notes,
    pub(super) config: Option<&'a Json>,
}

impl<'a> Ctx<'a> {
    pub(super) fn get(&self, name: &str) -> Option<(usize, &'a Tensor)> {
        let m: &'a Model = self.m;
        self.index.get(name).map(|&i| (i, &m.tensors[i]))
    }

    pub(super) fn dtype(t: &Tensor) -> &str {
        match &t.dtype {
            DType::St(d) => d.name,
            DType::StUnknown(s) => s,
            DType::Ggml(_) => "",
        }
    }

    /// Marks the tensors named `prefix + suffix` that exist as companions.
    pub(super) fn companions(
        &mut self,
        prefix: &str,
        suffixes: &[(&str, &'static str)],
    ) -> Vec<Companion> {
        let mut out = Vec::new();
        for (suffix, role) in suffixes {
            let name = format!("{prefix}{suffix}");
            if let Some((i, t)) = self.get(&name) {
                if self.roles[i] == Role::Plain {
                    self.roles[i] = Role::Companion;
                    out.push(Companion {
                        name,
                        role,
                        bytes: t.bytes.unwrap_or(0),
                    });
                }
            }
        }
        out
    }

    pub(super) fn warn(&mut self, code: &'static str, msg: String, tensor: &str) {
        self.notes.add(Severity::Warning, code, msg, tensor);
    }

    pub(super) fn info(&mut self, code: &'static str, msg: String, tensor: &str) {
        self.notes.add(Severity::Info, code, msg, tensor);
    }

    /// Records a quantised weight stored in tensor `packed`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        packed: usize,
        name: String,
        scheme: Scheme,
        shape: Vec<u64>,
        shape_source: &'static str,
        bits: u32,
        group_size: Option<u64>,
        granularity: String,
        companions: Vec<Companion>,
    ) {
        let t = &self.m.tensors[packed];
        let Some(n) = elements(&shape) else {
            self.warn(
                "quant-overflow",
                format!(
                    "the logical shape {} overflows 64 bits; counted as stored",
                    shape_text(&shape)
                ),
                &t.name,
            );
            return;
        };
        let bytes = companions
            .iter()
            .try_fold(t.bytes.unwrap_or(0), |b, c| b.checked_add(c.bytes))
            .unwrap_or(u64::MAX);
        let label = label(scheme, bits, &granularity);
        self.roles[packed] = Role::Packed(self.weights.len());
        self.weights.push(QuantWeight {
            name,
            scheme,
            stored: t.name.clone(),
            stored_dtype: Self::dtype(t).to_string(),
            stored_shape: t.shape.clone(),
            shape,
            shape_source,
            elements: n,
            bits,
            group_size,
            granularity,
            companions,
            bytes,
            bits_per_weight: bpw(bytes, n),
            label,
        });
    }
}

pub(super) fn label(scheme: Scheme, bits: u32, granularity: &str) -> String {
    let g = if granularity.is_empty() {
        String::new()
    } else {
        format!(", {granularity}")
    };
    match scheme {
        Scheme::Gptq | Scheme::Awq | Scheme::Mlx | Scheme::CompressedTensors | Scheme::Int8 => {
            format!("{} {bits}-bit{g}", scheme.name())
        }
        _ => format!("{}{g}", scheme.name()),
    }
}

pub(super) fn group_words(group: Option<u64>, logical_in: u64) -> String {
    match group {
        Some(g) if g == logical_in => "per-channel".into(),
        Some(g) => format!("group size {g}"),
        None => String::new(),
    }
}
pub(super) fn two_d(t: &Tensor) -> Option<(u64, u64)> {
    match t.shape[..] {
        [a, b] => Some((a, b)),
        _ => None,
    }
}
