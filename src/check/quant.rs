//! Findings of the quantised safetensors layouts (`summary::quant_st` reads the layouts and
//! says what it saw; the findings are made here): the same message for many tensors is
//! reported once, with the first tensor and the count.

use std::collections::HashMap;

use super::{Finding, Severity};

/// Findings gathered while reading, the same message for many tensors reported once (with the
/// first tensor and the count; a hash index keeps a hostile file of many distinct messages
/// linear).
#[derive(Default)]
pub struct Notes {
    list: Vec<(Severity, &'static str, String, String, u64)>,
    index: HashMap<(u8, &'static str, String), usize>,
}

impl Notes {
    /// Adds a finding of `sev` with `code` and `msg` about `tensor` (empty: none); the same
    /// message again only counts it.
    pub fn add(&mut self, sev: Severity, code: &'static str, msg: String, tensor: &str) {
        let key = (sev as u8, code, msg);
        match self.index.get(&key) {
            Some(&i) => self.list[i].4 += 1,
            None => {
                self.list
                    .push((sev, code, key.2.clone(), tensor.to_string(), 1));
                self.index.insert(key, self.list.len() - 1);
            }
        }
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The findings, in the order first added; a message seen for several tensors names the
    /// first and the count.
    pub fn into_findings(self) -> Vec<Finding> {
        self.list
            .into_iter()
            .map(|(severity, code, message, first, n)| {
                let tensor = (!first.is_empty()).then_some(first);
                let (message, tensor) = match (n, tensor) {
                    (1, t) | (_, t @ None) => (message, t),
                    (n, Some(t)) => (
                        format!(
                            "{message} ({n} tensors, the first \"{}\")",
                            crate::text::escape(&t)
                        ),
                        None,
                    ),
                };
                Finding {
                    severity,
                    code,
                    message,
                    offset: None,
                    tensor,
                }
            })
            .collect()
    }
}
