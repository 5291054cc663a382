//! Findings of a model as opened ([`OpenedModel`]): [`crate::check`]'s for each file of a set
//! (each tensor's offset is relative to its own part), and the set's own ([`SetInfo`]): parts
//! that are missing or unreadable, files given with it that were not merged, each GGUF part's
//! `split.*` keys against its place in the set, the safetensors index against the shards'
//! headers, and tensors found in two parts.

use std::collections::{HashMap, HashSet};

use super::set::{OpenedModel, SetInfo, ShardIndex, SplitKeys};
use crate::check::{self, doctor, finding, Finding, Severity};
use crate::format::{archive::Archive, Detail, Format, Model};

/// At most this many names are listed in one finding; the rest are counted.
const SHOWN: usize = 20;

/// `what` of a set: `part` (GGUF split) or `shard` (safetensors).
pub fn member_word(set: &SetInfo) -> &'static str {
    if set.kind == "gguf-split" {
        "part"
    } else {
        "shard"
    }
}

/// Validation findings of a model as opened: [`container_findings`] and then the doctor's
/// ([`add_doctor`]), errors first; for a single file with no set, [`crate::check::check_one_file`]'s.
pub fn check(m: &OpenedModel) -> Vec<Finding> {
    let mut out = container_findings(m);
    add_doctor(m, &mut out);
    out
}

/// Appends the doctor's findings ([`doctor::doctor_findings_of_set`]; a set not all read is
/// not judged as a whole model) to `out`, the [`container_findings`] of the same model, and
/// sorts them as [`check()`] does: the result equals `check(m)`. The doctor scans a vocabulary
/// token by token, so the page runs this after the first view is drawn.
pub fn add_doctor(m: &OpenedModel, out: &mut Vec<Finding>) {
    let incomplete_set = m
        .set
        .as_ref()
        .is_some_and(|s| !s.kind.is_empty() && !s.complete());
    doctor::doctor_findings_of_set(m, incomplete_set, out);
    out.sort_by_key(|f| f.severity);
}

/// Validation findings of a model as opened, without the doctor's, errors first
/// ([`check::check_file`] for one file, then the set's findings); one merged from several
/// files is checked file by file, since each tensor's offset is relative to its own part
/// (checking the merged table as one file would see every part's tensors overlap). The first
/// part carries the metadata and every parser and merge warning; each part's findings name the
/// part.
pub fn container_findings(m: &OpenedModel) -> Vec<Finding> {
    if m.parts.is_empty() {
        let mut out = check::check_file(m);
        set_findings(m, &mut out);
        out.sort_by_key(|f| f.severity);
        return out;
    }
    let mut out = Vec::new();
    for (i, p) in m.parts.iter().enumerate() {
        let first = i == 0;
        let part = Model {
            format: m.format,
            version: m.version,
            endian: m.endian,
            file_size: p.file_size,
            header_size: p.header_size,
            data_offset: p.header_size,
            alignment: m.alignment,
            metadata: if first {
                m.metadata.clone()
            } else {
                Vec::new()
            },
            metadata_count: if first { m.metadata_count } else { 0 },
            tensor_count: p.tensors.len() as u64,
            tensors: m
                .tensors
                .get(p.tensors.clone())
                .unwrap_or_default()
                .to_vec(),
            warnings: if first {
                m.warnings.clone()
            } else {
                Vec::new()
            },
            error: if first { m.error.clone() } else { None },
            bytes: Vec::new(),
            // PyTorch parts: marked so the range checks know; their pickles are judged once,
            // on the merged archive, below.
            detail: m.archive().map_or(Detail::None, |a| {
                Detail::Archive(Archive {
                    kind: a.kind,
                    ..Default::default()
                })
            }),
        };
        for mut f in check::check_file(&part) {
            if !first || f.tensor.is_some() {
                f.message = format!("{}: {}", p.name, f.message);
            }
            out.push(f);
        }
    }
    if crate::FULL {
        check::pickle_findings(m, &mut out);
    }
    set_findings(m, &mut out);
    out.sort_by_key(|f| f.severity);
    out
}

/// Findings of the model's set, if it has one.
fn set_findings(m: &OpenedModel, out: &mut Vec<Finding>) {
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
    for u in &set.unreadable {
        // A member of the set that is there but damaged: its tensors are not shown.
        out.push(finding(
            Severity::Error,
            "part-unreadable",
            format!("{} could not be read: {}", u.name, u.why),
            None,
            None,
        ));
    }
    if m.parts.is_empty() {
        // A part read alone: its own split.count against the set it was named as part of.
        let count = SplitKeys::of(m).count;
        if let Some(c) =
            count.filter(|&c| set.kind == "gguf-split" && c != u64::from(set.files_expected))
        {
            out.push(warning(
                "split-count-mismatch",
                format!(
                    "split.count says {c} parts; the file's name says {}",
                    set.files_expected
                ),
            ));
        }
        return;
    }
    for p in &m.parts {
        if p.format != m.format {
            out.push(warning(
                "set-format-mismatch",
                format!(
                    "{} is a {} file in a set of {} files; its tensors are listed anyway",
                    p.name,
                    p.format.name(),
                    m.format.name()
                ),
            ));
        }
    }
    match (m.format, &set.shard_index) {
        (Format::Gguf, _) => split_keys(m, set, out),
        (Format::Safetensors, Some(ix)) => index(m, ix, out, set.complete()),
        _ => {}
    }
    duplicates(m, out);
}

fn warning(code: &'static str, message: String) -> Finding {
    finding(Severity::Warning, code, message, None, None)
}

/// Each part's `split.no` and `split.count` against its place in the set, and the first
/// part's totals against what the parts hold.
fn split_keys(m: &OpenedModel, set: &SetInfo, out: &mut Vec<Finding>) {
    let files = u64::from(set.files_expected);
    for p in &m.parts {
        match p.split.no {
            Some(n) if n != p.position => out.push(warning(
                "split-no-mismatch",
                format!(
                    "{}: split.no is {n}, but this is part {} of the set (split.no counts from 0)",
                    p.name,
                    p.position + 1
                ),
            )),
            None => out.push(warning(
                "split-no-missing",
                format!(
                    "{}: split.no is missing: this file does not say it is part of a split set",
                    p.name
                ),
            )),
            _ => {}
        }
        if let Some(c) = p.split.count.filter(|&c| c != files) {
            out.push(warning(
                "split-count-mismatch",
                format!(
                    "{}: split.count says {c} parts; the set has {files} files",
                    p.name
                ),
            ));
        }
    }
    let first = m.parts[0].split;
    if let Some(total) = first.tensors {
        let have = m.tensors.len() as u64;
        if have != total && set.missing.is_empty() && m.error.is_none() {
            out.push(warning(
                "split-tensors-count",
                format!(
                    "split.tensors.count: the first part says the set holds {total} tensors; the parts hold {have}"
                ),
            ));
        }
    }
}

/// The index's weight map and total size against the shards' headers.
fn index(m: &OpenedModel, ix: &ShardIndex, out: &mut Vec<Finding>, complete: bool) {
    // Where each tensor actually is: name -> part index (first occurrence).
    let mut actual: HashMap<&str, usize> = HashMap::with_capacity(m.tensors.len());
    for (pi, p) in m.parts.iter().enumerate() {
        for t in m.tensors.get(p.tensors.clone()).unwrap_or_default() {
            actual.entry(t.name.as_str()).or_insert(pi);
        }
    }
    // The part each of the index's shard files is, looked up once per file.
    let part_of_file: Vec<Option<usize>> = ix
        .files
        .iter()
        .map(|file| {
            m.parts
                .iter()
                .position(|p| p.name.rsplit('/').next() == Some(file) || p.name == *file)
        })
        .collect();
    let mut in_index: HashSet<&str> = HashSet::with_capacity(ix.weight_map.len());
    let mut not_in_shard = Vec::new();
    for (name, file) in &ix.weight_map {
        in_index.insert(name.as_str());
        let (Some(file), Some(Some(pi))) = (
            ix.files.get(*file as usize),
            part_of_file.get(*file as usize).copied(),
        ) else {
            // The shard itself is missing or unreadable: reported once per file already.
            continue;
        };
        if actual.get(name.as_str()) != Some(&pi) {
            not_in_shard.push(format!("\"{name}\" (index: {file})"));
        }
    }
    if !not_in_shard.is_empty() {
        out.push(warning(
            "index-mismatch",
            format!(
                "weight_map: {} tensors the index places in a shard are not in that shard's header: {}",
                not_in_shard.len(),
                list(&not_in_shard)
            ),
        ));
    }
    let extra: Vec<String> = m
        .tensors
        .iter()
        .filter(|t| !in_index.contains(t.name.as_str()))
        .map(|t| format!("\"{}\"", t.name))
        .collect();
    if !extra.is_empty() {
        out.push(warning(
            "index-mismatch",
            format!(
                "weight_map: {} tensors are in a shard but not in the index: {}",
                extra.len(),
                list(&extra)
            ),
        ));
    }
    if let Some(total) = ix.total_size {
        let sum = m
            .tensors
            .iter()
            .try_fold(0u64, |s, t| t.bytes.and_then(|b| s.checked_add(b)));
        match sum {
            // With a shard missing the sum is short by its tensors: set-incomplete says so.
            Some(sum) if sum != total && m.error.is_none() && complete => out.push(warning(
                "index-total-size",
                format!(
                    "metadata.total_size: the index says {total} bytes; the shards' tensors hold {sum} bytes"
                ),
            )),
            _ => {}
        }
    }
}

/// The same tensor name in two parts.
fn duplicates(m: &OpenedModel, out: &mut Vec<Finding>) {
    if m.parts.len() < 2 {
        return;
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(m.tensors.len());
    let mut dups = Vec::new();
    for (pi, p) in m.parts.iter().enumerate() {
        for t in m.tensors.get(p.tensors.clone()).unwrap_or_default() {
            match seen.get(t.name.as_str()) {
                Some(&first) if first != pi => dups.push(format!(
                    "\"{}\" ({} and {})",
                    t.name, m.parts[first].name, p.name
                )),
                Some(_) => {}
                None => {
                    seen.insert(&t.name, pi);
                }
            }
        }
    }
    if !dups.is_empty() {
        out.push(warning(
            "duplicate-across-parts",
            format!("{} tensors are in two parts: {}", dups.len(), list(&dups)),
        ));
    }
}

fn list(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}
