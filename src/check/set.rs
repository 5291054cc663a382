//! Findings about the set of files a model was opened from ([`crate::format::SetInfo`]):
//! parts that are missing, and files given with it that were not merged.

use super::{finding, Finding, Severity};
use crate::format::{Model, SetInfo};

/// `what` of a set: `part` (GGUF split) or `shard` (safetensors).
pub fn member_word(set: &SetInfo) -> &'static str {
    if set.kind == "gguf-split" {
        "part"
    } else {
        "shard"
    }
}

/// Findings of the model's set, if it has one.
pub fn set_findings(m: &Model, out: &mut Vec<Finding>) {
    let Some(set) = &m.set else {
        return;
    };
    if !set.kind.is_empty() && !set.complete() {
        let word = member_word(set);
        let missing = if set.missing.is_empty() {
            String::new()
        } else {
            format!("; missing: {}", set.missing.join(", "))
        };
        out.push(finding(
            Severity::Warning,
            "set-incomplete",
            format!(
                "{} of the model's {} {word}s read{missing}: counts, parameters and bits per weight are those of the files read, not of the whole model",
                set.files_read.len(),
                set.files_expected
            ),
            None,
            None,
        ));
    }
    for s in &set.strays {
        out.push(finding(
            Severity::Warning,
            "set-stray",
            format!("{} was not merged: {}", s.name, s.why),
            None,
            None,
        ));
    }
}
