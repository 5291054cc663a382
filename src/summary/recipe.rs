//! The quantisation recipe of a GGUF file: its per-tensor types collapsed into the few rules
//! that produce them, and the `llama-quantize` arguments that reproduce them, with the file's
//! provenance (quantisation version, file type, importance matrix, converter and source keys).
//!
//! Tensors are grouped by pattern: a layer tensor `blk.N.ffn_down.weight` by its role
//! (`blk.#.ffn_down.weight`, [`super::layers::split_layer`]), any other by its name. A pattern
//! whose tensors share one type is one rule; a mixed one gives one rule per type with the layers
//! that use it, the type of most layers shown as "elsewhere".
//!
//! Each rule's `--tensor-type` argument is an anchored regular expression (`llama-quantize`
//! matches `std::regex_search` against the tensor name, lower-cased pattern, `=` then the ggml
//! type name), and the rules' expressions never overlap, so the result does not depend on
//! whether a llama.cpp version lets the first or the last matching rule win. llama-quantize
//! keeps one-dimensional tensors (norms, biases) in F32 whatever it is told; their rules say
//! what the file holds.

use std::collections::BTreeMap;

use serde::Serialize;

use super::layers::split_layer;
use crate::format::{Format, Model, Value};

/// One rule: tensors of one pattern and one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The tensors' type label (`Q6_K`).
    pub dtype: String,
    /// The layers it applies to, ascending (`None` for a pattern outside the layers).
    pub layers: Option<Vec<u64>>,
    /// Whether it covers every layer of its pattern (so no layer list is needed).
    pub all_layers: bool,
    /// Tensors it applies to.
    pub tensors: u64,
    /// The anchored regular expression matching exactly its tensors' names.
    pub regex: String,
}

/// One pattern-collapsed row: `blk.#.attn_v.weight ×30` and its types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatternRow {
    /// `blk.#.attn_v.weight`, or a whole-model tensor's name.
    pub pattern: String,
    /// Tensors the pattern stands for.
    pub tensors: u64,
    /// Its rules, the type of the most tensors first (ties: by type label).
    pub rules: Vec<Rule>,
}

/// One provenance key and its value as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProvenanceKey {
    /// The metadata key.
    pub key: String,
    /// Its value as text (not escaped; the views escape it).
    pub value: String,
}

/// The recipe of a GGUF file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recipe {
    /// Rows in the order of their patterns' first tensors in the file.
    pub rows: Vec<PatternRow>,
    /// The base type to give `llama-quantize` (the file type's name without `MOSTLY_`, e.g.
    /// `Q4_K_M`; else the type of the most tensors).
    pub base_type: String,
    /// `--tensor-type 'REGEX=TYPE'` arguments, one per rule, in the rows' order.
    pub arguments: Vec<String>,
    /// Whether every tensor's name could be written as an expression llama-quantize reads
    /// (a name with capitals cannot: it lower-cases patterns).
    pub complete: bool,
    /// Quantisation and conversion keys: `general.file_type`, `general.quantization_version`,
    /// `quantize.*` (imatrix file, dataset, entries, chunks), `general.quantized_by`,
    /// `general.source.*`, `general.base_model.*`, `general.url`, `general.repo_url`.
    pub provenance: Vec<ProvenanceKey>,
}

/// Characters a name must escape inside a regular expression.
const REGEX_SPECIAL: &str = r".^$|?*+()[]{}\";

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if REGEX_SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `'…'` for a POSIX shell, a `'` inside written `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Whether a metadata key belongs to the provenance section.
fn provenance_key(k: &str) -> bool {
    matches!(
        k,
        "general.file_type"
            | "general.quantization_version"
            | "general.quantized_by"
            | "general.url"
            | "general.repo_url"
    ) || k.starts_with("quantize.")
        || k.starts_with("general.source.")
        || k.starts_with("general.base_model.")
}

fn provenance(m: &Model) -> Vec<ProvenanceKey> {
    m.metadata
        .iter()
        .filter(|e| provenance_key(&e.key))
        .map(|e| {
            let mut value = crate::text::value(&e.value, &m.bytes, 8, 200);
            if e.key == "general.file_type" {
                if let Some(n) = e
                    .value
                    .as_u64()
                    .and_then(crate::format::ggml_type::file_type_name)
                {
                    value = format!("{value} ({n})");
                }
            }
            ProvenanceKey {
                key: e.key.clone(),
                value,
            }
        })
        .collect()
}

/// The recipe of a GGUF model; `None` for other formats or a file without tensors.
pub fn recipe(m: &Model) -> Option<Recipe> {
    if m.format != Format::Gguf || m.tensors.is_empty() {
        return None;
    }
    // pattern -> (first index, layer-pattern parts, type -> layers / count)
    struct Group {
        first: usize,
        layered: Option<(String, String)>,
        types: BTreeMap<String, (Vec<u64>, u64)>,
    }
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut type_counts: BTreeMap<String, u64> = BTreeMap::new();
    for (i, t) in m.tensors.iter().enumerate() {
        let label = t.dtype.label();
        *type_counts.entry(label.clone()).or_default() += 1;
        let (pattern, layered, layer) = match split_layer(&t.name) {
            Some((prefix, n, role)) => (
                format!("{prefix}.#.{role}"),
                Some((prefix.to_string(), role.to_string())),
                Some(n),
            ),
            None => (t.name.clone(), None, None),
        };
        let g = groups.entry(pattern).or_insert(Group {
            first: i,
            layered,
            types: BTreeMap::new(),
        });
        let e = g.types.entry(label).or_default();
        if let Some(n) = layer {
            e.0.push(n);
        }
        e.1 += 1;
    }
    let mut order: Vec<(String, Group)> = groups.into_iter().collect();
    order.sort_by_key(|(_, g)| g.first);
    let mut rows = Vec::with_capacity(order.len());
    let mut arguments = Vec::new();
    let mut complete = true;
    for (pattern, g) in order {
        let single = g.types.len() == 1;
        let mut rules: Vec<Rule> = g
            .types
            .into_iter()
            .map(|(dtype, (mut layers, tensors))| {
                layers.sort_unstable();
                layers.dedup();
                let regex = match &g.layered {
                    Some((prefix, role)) if single => {
                        format!(r"^{}\.\d+\.{}$", regex_escape(prefix), regex_escape(role))
                    }
                    Some((prefix, role)) => format!(
                        r"^{}\.({})\.{}$",
                        regex_escape(prefix),
                        layers
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join("|"),
                        regex_escape(role)
                    ),
                    None => format!("^{}$", regex_escape(&pattern)),
                };
                Rule {
                    layers: g.layered.as_ref().map(|_| layers),
                    all_layers: single,
                    dtype,
                    tensors,
                    regex,
                }
            })
            .collect();
        rules.sort_by(|a, b| {
            b.tensors
                .cmp(&a.tensors)
                .then_with(|| a.dtype.cmp(&b.dtype))
        });
        for r in &rules {
            if r.regex.chars().any(|c| c.is_uppercase()) {
                complete = false;
            }
            arguments.push(format!(
                "--tensor-type {}",
                shell_quote(&format!("{}={}", r.regex, r.dtype))
            ));
        }
        rows.push(PatternRow {
            pattern,
            tensors: rules.iter().map(|r| r.tensors).sum(),
            rules,
        });
    }
    let most = type_counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(t, _)| t.clone())
        .unwrap_or_default();
    let base_type = m
        .get("general.file_type")
        .and_then(Value::as_u64)
        .and_then(crate::format::ggml_type::file_type_name)
        .map(|n| n.strip_prefix("MOSTLY_").unwrap_or(n).to_string())
        .unwrap_or(most);
    Some(Recipe {
        rows,
        base_type,
        arguments,
        complete,
        provenance: provenance(m),
    })
}
