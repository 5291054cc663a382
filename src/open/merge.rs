//! Several files shown as one model: a GGUF split set (`split.no`, `split.count`,
//! `split.tensors.count` in every part, llama.cpp's gguf-split) or safetensors shards with or
//! without their index (`model.safetensors.index.json`: `metadata.total_size` and a
//! `weight_map` of tensor name to shard file).
//!
//! The merged [`Model`] has the first part's metadata, every part's tensors in part order (each
//! tensor's offset stays relative to its own file), sizes summed over the parts, and
//! [`Model::parts`] saying which tensors each file holds. Inconsistencies between the parts, the
//! index and the listing become warnings; nothing here fails.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::format::{Format, Model, Part, Value, Warning};

/// One part as read: its file name, and the model read from it (`Err`: why it could not be read).
pub type PartResult = (String, Result<Model, String>);

/// A safetensors shard index, read without keeping its JSON tree: shard file names once each,
/// and (tensor, shard) pairs in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShardIndex {
    /// `metadata.total_size`, when present and a non-negative integer.
    pub total_size: Option<u64>,
    /// Distinct shard file names, in order of first appearance in `weight_map`.
    pub files: Vec<String>,
    /// (tensor name, index into `files`), in file order.
    pub weight_map: Vec<(String, u32)>,
}

impl ShardIndex {
    /// The shard file names sorted as the files are numbered (`-00001-of-` first).
    pub fn files_in_order(&self) -> Vec<String> {
        let mut f = self.files.clone();
        f.sort();
        f
    }

    /// Tensor names the index places in `file`.
    pub fn tensors_in(&self, file: &str) -> impl Iterator<Item = &str> {
        let id = self.files.iter().position(|f| f == file);
        self.weight_map
            .iter()
            .filter(move |(_, f)| Some(*f as usize) == id)
            .map(|(n, _)| n.as_str())
    }
}

/// Parses an index JSON (`{"metadata": {"total_size": N, ...}, "weight_map": {...}}`) in one
/// pass over the bytes: the weight map is streamed into (name, shard id) pairs, shard names are
/// stored once, and everything else is skipped without being built. A 60 MB index of a model
/// with hundreds of experts thus costs its bytes plus its tensor names, not a JSON tree.
pub fn parse_index(json: &[u8]) -> Result<ShardIndex, String> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let index = (&mut de)
        .deserialize_map(IndexVisitor)
        .map_err(|e| format!("the index file is not the expected JSON: {e}"))?;
    de.end()
        .map_err(|e| format!("the index file has data after its JSON object: {e}"))?;
    Ok(index)
}

struct IndexVisitor;

impl<'de> Visitor<'de> for IndexVisitor {
    type Value = ShardIndex;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object with \"weight_map\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ShardIndex, A::Error> {
        let mut index = ShardIndex::default();
        let mut seen_map = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "metadata" => index.total_size = map.next_value_seed(TotalSize)?,
                "weight_map" => {
                    map.next_value_seed(WeightMap(&mut index))?;
                    seen_map = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !seen_map {
            return Err(serde::de::Error::custom("there is no \"weight_map\""));
        }
        Ok(index)
    }
}

/// `metadata`: picks `total_size` (a number, or a string of digits as some writers emit).
struct TotalSize;

impl<'de> DeserializeSeed<'de> for TotalSize {
    type Value = Option<u64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TotalSize {
    type Value = Option<u64>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a metadata object")
    }
    fn visit_unit<E>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
        let mut total = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "total_size" {
                let v: serde_json::Value = map.next_value()?;
                total = v
                    .as_u64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                    .or_else(|| {
                        v.as_f64()
                            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
                            .map(|f| f as u64)
                    });
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(total)
    }
}

struct WeightMap<'a>(&'a mut ShardIndex);

impl<'de> DeserializeSeed<'de> for WeightMap<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for WeightMap<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object of tensor name to shard file name")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let index = self.0;
        // Shard name -> id, so an index naming many distinct files costs one lookup per entry,
        // not a scan of every file seen so far.
        let mut ids: std::collections::HashMap<String, u32> = (0u32..)
            .zip(&index.files)
            .map(|(i, f)| (f.clone(), i))
            .collect();
        while let Some(name) = map.next_key::<String>()? {
            let file = map.next_value::<std::borrow::Cow<'de, str>>()?;
            let id = match ids.get(file.as_ref()) {
                Some(&i) => i,
                None => {
                    let i = u32::try_from(index.files.len())
                        .map_err(|_| serde::de::Error::custom("more than 2^32 shard files"))?;
                    ids.insert(file.to_string(), i);
                    index.files.push(file.into_owned());
                    i
                }
            };
            index.weight_map.push((name, id));
        }
        Ok(())
    }
}

fn warn(field: impl Into<String>, message: impl Into<String>) -> Warning {
    Warning {
        field: field.into(),
        offset: 0,
        message: message.into(),
    }
}

/// Merges the parts (in order) into one model. `Err` when no part could be read at all.
/// `missing` names set members the listing lacks; `index` is the safetensors index, if any.
pub fn merge(
    parts: Vec<PartResult>,
    index: Option<&ShardIndex>,
    missing: &[String],
) -> Result<Model, String> {
    let mut warnings = Vec::new();
    for m in missing {
        warnings.push(warn(
            format!("part \"{m}\""),
            "this part of the set is not in the repository: its tensors are not shown",
        ));
    }
    let mut merged: Option<Model> = None;
    let mut failures = Vec::new();
    for (name, result) in parts {
        let model = match result {
            Ok(m) => m,
            Err(why) => {
                warnings.push(warn(
                    format!("part \"{name}\""),
                    format!("could not be read: {why}"),
                ));
                failures.push(format!("{name}: {why}"));
                continue;
            }
        };
        merged = Some(match merged.take() {
            None => start(name, model),
            Some(acc) => append(acc, name, model, &mut warnings),
        });
    }
    let Some(mut m) = merged else {
        return Err(format!(
            "none of the parts could be read ({})",
            failures.join("; ")
        ));
    };
    match m.format {
        Format::Gguf => check_gguf_split(&m, missing.len(), &mut warnings),
        Format::Safetensors => {
            if let Some(ix) = index {
                check_index(&m, ix, &mut warnings);
            }
        }
    }
    duplicates(&m, &mut warnings);
    m.warnings.extend(warnings);
    Ok(m)
}

fn start(name: String, mut m: Model) -> Model {
    prefix_findings(&mut m, &name);
    m.parts = vec![Part {
        name,
        file_size: m.file_size,
        header_size: m.header_size,
        tensors: 0..m.tensors.len(),
    }];
    m
}

fn prefix_findings(m: &mut Model, name: &str) {
    for w in &mut m.warnings {
        w.field = format!("{name}: {}", w.field);
    }
    if let Some(e) = &mut m.error {
        e.field = format!("{name}: {}", e.field);
    }
}

fn append(mut acc: Model, name: String, mut m: Model, warnings: &mut Vec<Warning>) -> Model {
    if m.format != acc.format {
        warnings.push(warn(
            format!("part \"{name}\""),
            format!(
                "is a {} file in a set of {} files; its tensors are listed anyway",
                m.format.name(),
                acc.format.name()
            ),
        ));
    }
    prefix_findings(&mut m, &name);
    let begin = acc.tensors.len();
    acc.tensors.append(&mut m.tensors);
    acc.parts.push(Part {
        name,
        file_size: m.file_size,
        header_size: m.header_size,
        tensors: begin..acc.tensors.len(),
    });
    acc.file_size = acc.file_size.saturating_add(m.file_size);
    acc.header_size = acc.header_size.saturating_add(m.header_size);
    acc.tensor_count = acc.tensor_count.saturating_add(m.tensor_count);
    acc.warnings.append(&mut m.warnings);
    if acc.error.is_none() {
        acc.error = m.error;
    }
    acc
}

/// `split.no`, `split.count` and `split.tensors.count` of one GGUF header. Only the first
/// part's metadata is kept in the merged model, so the other parts' keys are checked before
/// merging ([`check_split_part`]).
fn split_keys(m: &Model) -> (Option<u64>, Option<u64>, Option<u64>) {
    let get = |k: &str| m.get(k).and_then(Value::as_u64);
    (
        get("split.no"),
        get("split.count"),
        get("split.tensors.count"),
    )
}

/// Checks one GGUF part's `split.no` / `split.count` against its position in a set of `parts`
/// files; call for every part before merging.
pub fn check_split_part(name: &str, position: usize, parts: usize, m: &Model) -> Vec<Warning> {
    let mut out = Vec::new();
    let (no, count, _) = split_keys(m);
    match no {
        Some(n) if n != position as u64 => out.push(warn(
            format!("{name}: split.no"),
            format!(
                "is {n}, but this is part {} of the set (split.no counts from 0)",
                position + 1
            ),
        )),
        None => out.push(warn(
            format!("{name}: split.no"),
            "is missing: this file does not say it is part of a split set",
        )),
        _ => {}
    }
    if let Some(c) = count.filter(|&c| c != parts as u64) {
        out.push(warn(
            format!("{name}: split.count"),
            format!("says {c} parts; the set has {parts} files"),
        ));
    }
    out
}

fn check_gguf_split(m: &Model, missing: usize, warnings: &mut Vec<Warning>) {
    let (_, count, total) = split_keys(m);
    if let Some(total) = total {
        let have = m.tensors.len() as u64;
        if have != total && missing == 0 && m.error.is_none() {
            warnings.push(warn(
                "split.tensors.count",
                format!("the first part says the set holds {total} tensors; the parts hold {have}"),
            ));
        }
    }
    if let Some(c) = count {
        let have = (m.parts.len() + missing) as u64;
        if c != have {
            warnings.push(warn(
                "split.count",
                format!("the first part says {c} parts; {have} were found"),
            ));
        }
    }
}

fn check_index(m: &Model, ix: &ShardIndex, warnings: &mut Vec<Warning>) {
    use std::collections::{HashMap, HashSet};
    // Where each tensor actually is: name -> part index (first occurrence).
    let mut actual: HashMap<&str, usize> = HashMap::with_capacity(m.tensors.len());
    for (pi, p) in m.parts.iter().enumerate() {
        for t in &m.tensors[p.tensors.clone()] {
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
    const SHOWN: usize = 20;
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
        warnings.push(warn(
            "weight_map",
            format!(
                "{} tensors the index places in a shard are not in that shard's header: {}",
                not_in_shard.len(),
                list(&not_in_shard, SHOWN)
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
        warnings.push(warn(
            "weight_map",
            format!(
                "{} tensors are in a shard but not in the index: {}",
                extra.len(),
                list(&extra, SHOWN)
            ),
        ));
    }
    if let Some(total) = ix.total_size {
        let sum = m
            .tensors
            .iter()
            .try_fold(0u64, |s, t| t.bytes.and_then(|b| s.checked_add(b)));
        match sum {
            Some(sum) if sum != total && m.error.is_none() => warnings.push(warn(
                "metadata.total_size",
                format!("the index says {total} bytes; the shards' tensors hold {sum} bytes"),
            )),
            _ => {}
        }
    }
}

/// The same tensor name in two parts (or twice in one).
fn duplicates(m: &Model, warnings: &mut Vec<Warning>) {
    use std::collections::HashMap;
    if m.parts.len() < 2 {
        return;
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(m.tensors.len());
    let mut dups = Vec::new();
    for (pi, p) in m.parts.iter().enumerate() {
        for t in &m.tensors[p.tensors.clone()] {
            if let Some(&first) = seen.get(t.name.as_str()) {
                if first != pi {
                    dups.push(format!(
                        "\"{}\" ({} and {})",
                        t.name, m.parts[first].name, p.name
                    ));
                }
            } else {
                seen.insert(&t.name, pi);
            }
        }
    }
    if !dups.is_empty() {
        warnings.push(warn(
            "tensors",
            format!(
                "{} tensors are in two parts: {}",
                dups.len(),
                list(&dups, 20)
            ),
        ));
    }
}

fn list(items: &[String], shown: usize) -> String {
    let mut s = items
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > shown {
        s.push_str(&format!(" and {} more", items.len() - shown));
    }
    s
}

/// First read for a shard whose tensor names the index lists: the JSON header takes about the
/// name plus 100 bytes per tensor (`{"dtype":"BF16","shape":[4096,4096],"data_offsets":[…]}`),
/// plus 25 %, at least 16 KiB and at most 256 KiB (`ReadPolicy::REMOTE`'s first read). If the
/// guess is short, the one more read is exact, so a shard never takes more than 2 requests.
pub fn shard_first_read<'a>(names: impl Iterator<Item = &'a str>) -> u64 {
    let guess = names.fold(0u64, |s, n| s.saturating_add(n.len() as u64 + 100));
    (guess.saturating_add(guess / 4).saturating_add(1024)).clamp(16 << 10, 256 << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_streamed_with_shard_names_once() {
        let json = br#"{"metadata": {"total_size": 1234, "format": "pt"},
            "weight_map": {"a.weight": "model-00001-of-00002.safetensors",
                           "b.weight": "model-00002-of-00002.safetensors",
                           "c.weight": "model-00001-of-00002.safetensors"},
            "extra": [1, {"x": null}]}"#;
        let ix = parse_index(json).unwrap();
        assert_eq!(ix.total_size, Some(1234));
        assert_eq!(ix.files.len(), 2);
        assert_eq!(
            ix.weight_map,
            [
                ("a.weight".to_string(), 0),
                ("b.weight".to_string(), 1),
                ("c.weight".to_string(), 0)
            ]
        );
        let in1: Vec<_> = ix.tensors_in("model-00001-of-00002.safetensors").collect();
        assert_eq!(in1, ["a.weight", "c.weight"]);
        assert!(parse_index(br#"{"metadata": {}}"#).is_err());
        assert!(parse_index(br#"{"weight_map": {"a": 3}}"#).is_err());
        assert_eq!(
            parse_index(br#"{"metadata": {"total_size": "77"}, "weight_map": {}}"#)
                .unwrap()
                .total_size,
            Some(77)
        );
    }

    #[test]
    fn shard_first_read_is_bounded() {
        assert_eq!(shard_first_read(std::iter::empty()), 16 << 10);
        let names: Vec<String> = (0..100_000).map(|i| format!("t{i}")).collect();
        assert_eq!(
            shard_first_read(names.iter().map(String::as_str)),
            256 << 10
        );
    }
}
