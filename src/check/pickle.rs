//! Findings of a PyTorch file's pickles: the safety verdict of every import (what `torch.load`
//! would import, and call, when it unpickles the file), tensors that could not be read, tied
//! weights and strided views.
//!
//! Verdicts come from [`crate::format::pickle::verdict`]: a dangerous import is an error
//! (loading the file runs it, or can), an unknown one a warning (`torch.load(weights_only=True)`
//! refuses it, a full load imports and may call it), and a file whose every import is known to
//! be safe gets a note saying so — only when every pickle a loader may unpickle was read to its
//! end. A pickle whose reading stopped early (a cap of the pickle machine, damaged bytes) or
//! that was not read at all is an error, *not fully checked*: what was not read may run code.

use std::collections::HashMap;

use super::{finding, Finding, Severity};
use crate::format::pickle::Verdict;
use crate::format::Model;

/// The pickle findings of `m` (nothing for GGUF and safetensors).
pub fn pickle_findings(m: &Model, out: &mut Vec<Finding>) {
    use Severity::*;
    let Some(a) = m.archive() else { return };
    let mut dangerous = 0usize;
    let mut unknown = 0usize;
    for p in &a.pickles {
        for i in &p.imports {
            let called = match i.calls.as_slice() {
                [] => "imported, not called".to_string(),
                [one] => format!("called at byte {one}"),
                [first, rest @ ..] => {
                    format!("called {} times, first at byte {first}", rest.len() + 1)
                }
            };
            let what = format!("{}.{}", i.module, i.name);
            match i.verdict {
                Verdict::Dangerous => {
                    dangerous += 1;
                    out.push(finding(
                        Error,
                        "pickle-dangerous",
                        format!(
                            "{} imports {what} ({called}; {}): unpickling this file with \
                             {} or pickle runs code; weightpeek only reads it",
                            p.name,
                            i.why,
                            a.loader()
                        ),
                        Some(i.offset),
                        None,
                    ));
                }
                Verdict::Unknown => unknown += 1,
                Verdict::Safe => {}
            }
        }
    }
    // Unknown imports: one warning per pickle, naming a few (a TorchScript archive imports a
    // class per module of the model).
    for p in &a.pickles {
        let names: Vec<String> = p
            .imports
            .iter()
            .filter(|i| i.verdict == Verdict::Unknown)
            .map(|i| format!("{}.{}", i.module, i.name))
            .collect();
        let Some(first) = p.imports.iter().find(|i| i.verdict == Verdict::Unknown) else {
            continue;
        };
        let shown = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
        let more = if names.len() > 3 {
            format!(" and {} more", names.len() - 3)
        } else {
            String::new()
        };
        let torchscript = p
            .imports
            .iter()
            .filter(|i| i.verdict == Verdict::Unknown)
            .all(|i| i.module == "__torch__" || i.module.starts_with("__torch__."));
        let what = if names.len() == 1 {
            "an import"
        } else {
            "imports"
        };
        let message = if torchscript {
            format!(
                "{} imports {} TorchScript class{} ({shown}{more}): torch.jit.load builds them \
                 from the archive's TorchScript code (code/), which is not Python; \
                 torch.load(weights_only=True) refuses such a file",
                p.name,
                names.len(),
                if names.len() == 1 { "" } else { "es" }
            )
        } else if matches!(a.kind, "npy" | "npz") {
            format!(
                "{} has {what} this tool does not know ({shown}{more}): {} imports and \
                 may call them; np.load without allow_pickle refuses the array",
                p.name,
                a.loader()
            )
        } else {
            format!(
                "{} has {what} this tool does not know ({shown}{more}): a full torch.load \
                 imports and may call them, torch.load(weights_only=True) refuses them",
                p.name
            )
        };
        out.push(finding(
            Warning,
            "pickle-unknown",
            message,
            Some(first.offset),
            None,
        ));
    }
    for p in &a.pickles {
        if let Some(why) = &p.stopped {
            out.push(finding(
                Error,
                "pickle-not-checked",
                format!(
                    "{} was not read to its end, so it is not fully checked (what follows may \
                     run code when {} or pickle unpickles it): {why}",
                    p.name,
                    a.loader()
                ),
                Some(p.offset.saturating_add(p.len)),
                None,
            ));
        }
    }
    for u in &a.unchecked {
        out.push(finding(
            Error,
            "pickle-not-checked",
            format!(
                "{}: a pickle a loader may unpickle was not read, so the file is not fully \
                 checked: {}",
                u.name, u.why
            ),
            Some(u.offset),
            None,
        ));
    }
    if !a.pickles.is_empty() && dangerous == 0 && unknown == 0 && a.fully_checked() {
        let n: usize = a.pickles.iter().map(|p| p.imports.len()).sum();
        let of = match a.pickles.len() {
            1 => "the pickle".to_string(),
            k => format!("the {k} pickles"),
        };
        let numpy = if matches!(a.kind, "npy" | "npz") {
            format!(
                " (loading it still needs {}: np.load refuses object arrays by default)",
                a.loader()
            )
        } else {
            String::new()
        };
        out.push(finding(
            Info,
            "pickle-safe",
            format!(
                "every one of the {n} imports of {of} is a known tensor or container \
                 rebuild: nothing in it runs code when loaded{numpy}"
            ),
            a.pickles.first().map(|p| p.offset),
            None,
        ));
    }
    for (name, at, why) in &a.skipped {
        out.push(finding(
            Warning,
            "tensor-not-read",
            format!("a tensor at \"{name}\" is not listed: {why}"),
            Some(*at),
            Some(name),
        ));
    }
    // Tensors sharing one storage (tied weights, views).
    let mut first: HashMap<usize, usize> = HashMap::new();
    for (ti, s) in a.tensor_storage.iter().enumerate() {
        let Some(s) = *s else { continue };
        match first.get(&s) {
            Some(&f) => {
                let (Some(t), Some(o)) = (m.tensors.get(ti), m.tensors.get(f)) else {
                    continue;
                };
                out.push(finding(
                    Info,
                    "shared-storage",
                    format!(
                        "shares storage {} with \"{}\" (tied weights or a view): its bytes are \
                         counted once per tensor in the totals",
                        a.storages.get(s).map_or("?", |x| x.key.as_str()),
                        o.name
                    ),
                    Some(t.offset),
                    Some(&t.name),
                ));
            }
            None => {
                first.insert(s, ti);
            }
        }
    }
    for (index, stride) in &a.strided {
        let name = m.tensors.get(*index).map(|t| t.name.as_str());
        out.push(finding(
            Info,
            "strided-view",
            format!(
                "a strided view (stride {stride:?}): its values are not one byte range, so \
                 they are not previewed"
            ),
            m.tensors.get(*index).map(|t| t.offset),
            name,
        ));
    }
}
