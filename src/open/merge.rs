//! Several files shown as one model: a GGUF split set (`split.no`, `split.count`,
//! `split.tensors.count` in every part, llama.cpp's gguf-split) or safetensors shards with or
//! without their index (`model.safetensors.index.json`: `metadata.total_size` and a
//! `weight_map` of tensor name to shard file).
//!
//! The merged [`OpenedModel`]'s [`Model`] has the first part's metadata, every part's tensors in
//! part order (each tensor's offset stays relative to its own file) and sizes summed over the
//! parts; its [`OpenedModel::parts`] say which tensors each file holds (with each file's own
//! split keys), and a [`SetInfo`] what was read, missing or unreadable (with the index, if any).
//! Inconsistencies between the parts, the index and the listing are found by
//! [`super::findings::check`] from these; nothing here fails.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::recognise::PART_EXTS;
pub use super::set::ShardIndex;
use super::set::{OpenedModel, Part, SetInfo, SplitKeys, Stray};
use crate::format::{Format, Model};
use crate::remote::shards::split_name;
use crate::source::SourceError;

/// One part as read: its file name, and the model read from it (`Err`: why it could not be read).
pub type PartResult = (String, Result<Model, PartError>);

/// Why one part of a set could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartError {
    /// Reading the file failed (I/O, HTTP).
    Source(SourceError),
    /// Its bytes are not a model header the parsers read (field and byte offset).
    Parse(crate::format::Error),
    /// Another reason, already worded by the layer that found it.
    Other(String),
}

impl std::fmt::Display for PartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartError::Source(e) => write!(f, "{e}"),
            PartError::Parse(e) => write!(f, "{e}"),
            PartError::Other(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PartError {}

impl From<&str> for PartError {
    fn from(why: &str) -> Self {
        PartError::Other(why.to_string())
    }
}

impl From<String> for PartError {
    fn from(why: String) -> Self {
        PartError::Other(why)
    }
}

/// Why an index file could not be parsed (serde_json's words after ours).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexError {
    /// The bytes are not the index's JSON object (no `weight_map`, a value of the wrong type,
    /// not JSON at all).
    NotTheJson(String),
    /// The JSON object is followed by more than whitespace.
    TrailingData(String),
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexError::NotTheJson(e) => write!(f, "the index file is not the expected JSON: {e}"),
            IndexError::TrailingData(e) => {
                write!(f, "the index file has data after its JSON object: {e}")
            }
        }
    }
}

impl std::error::Error for IndexError {}

/// Why parts could not be merged: none of them was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPartRead {
    /// Each part given and why it could not be read.
    pub failures: Vec<Stray>,
}

impl std::fmt::Display for NoPartRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let failures: Vec<String> = self
            .failures
            .iter()
            .map(|s| format!("{}: {}", s.name, s.why))
            .collect();
        write!(
            f,
            "none of the parts could be read ({})",
            failures.join("; ")
        )
    }
}

impl std::error::Error for NoPartRead {}

/// Parses an index JSON (`{"metadata": {"total_size": N, ...}, "weight_map": {...}}`) in one
/// pass over the bytes: the weight map is streamed into (name, shard id) pairs, shard names are
/// stored once, and everything else is skipped without being built. A 60 MB index of a model
/// with hundreds of experts thus costs its bytes plus its tensor names, not a JSON tree.
///
/// Errors: [`IndexError`], with serde_json's words (line and column).
pub fn parse_index(json: &[u8]) -> Result<ShardIndex, IndexError> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let index = (&mut de)
        .deserialize_map(IndexVisitor)
        .map_err(|e| IndexError::NotTheJson(e.to_string()))?;
    de.end()
        .map_err(|e| IndexError::TrailingData(e.to_string()))?;
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

/// Merges the parts (in order) into one model. `Err` when no part could be read at all.
/// `missing` names set members that are not there; `index` is the safetensors index, if any.
/// The model's [`OpenedModel::set`] records what was read, missing and unreadable.
pub fn merge(
    parts: Vec<PartResult>,
    index: Option<&ShardIndex>,
    missing: &[String],
) -> Result<OpenedModel, NoPartRead> {
    let mut merged: Option<OpenedModel> = None;
    let mut unreadable = Vec::new();
    let mut read = Vec::new();
    let total = parts.len();
    for (given_at, (name, result)) in parts.into_iter().enumerate() {
        let model = match result {
            Ok(m) => m,
            Err(why) => {
                unreadable.push(Stray {
                    name,
                    why: why.to_string(),
                });
                continue;
            }
        };
        read.push(name.clone());
        let position = position_of(&name, given_at);
        merged = Some(match merged.take() {
            None => start(name, position, model),
            Some(acc) => append(acc, name, position, model),
        });
    }
    let Some(mut m) = merged else {
        return Err(NoPartRead {
            failures: unreadable,
        });
    };
    let split = m.parts.first().map(|p| p.split).unwrap_or_default();
    let expected = (total + missing.len()) as u64;
    let missing: Vec<String> = missing.to_vec();
    m.set = Some(SetInfo {
        kind: match m.format {
            Format::Gguf => "gguf-split",
            Format::Safetensors => "safetensors-shards",
            Format::Pytorch | Format::PytorchLegacy => "pytorch-shards",
            Format::Onnx | Format::Numpy => "files",
        },
        files_expected: u32::try_from(expected).unwrap_or(u32::MAX),
        files_read: read,
        missing,
        model_tensors: match index {
            Some(ix) => Some(ix.weight_map.len() as u64),
            None => split.tensors,
        },
        index: None,
        strays: Vec::new(),
        unreadable,
        part: None,
        shard_index: index.cloned(),
    });
    Ok(m)
}

/// The 0-based place of `name` in its set: the number in a `-0000N-of-0000M` name, else
/// `given_at`.
fn position_of(name: &str, given_at: usize) -> u64 {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    PART_EXTS
        .iter()
        .find_map(|ext| split_name(file, ext))
        .map_or(given_at as u64, |(_, no, _)| {
            u64::from(no.saturating_sub(1))
        })
}

fn part(name: String, position: u64, m: &Model, tensors: std::ops::Range<usize>) -> Part {
    Part {
        name,
        file_size: m.file_size,
        header_size: m.header_size,
        tensors,
        format: m.format,
        position,
        split: SplitKeys::of(m),
    }
}

fn start(name: String, position: u64, mut m: Model) -> OpenedModel {
    prefix_findings(&mut m, &name);
    if let Some(a) = m.archive_mut() {
        for p in &mut a.pickles {
            p.name = format!("{name}: {}", p.name);
        }
        for u in &mut a.unchecked {
            u.name = format!("{name}: {}", u.name);
        }
    }
    let parts = vec![part(name, position, &m, 0..m.tensors.len())];
    OpenedModel {
        parts,
        ..OpenedModel::from(m)
    }
}

fn prefix_findings(m: &mut Model, name: &str) {
    for w in &mut m.warnings {
        w.field = format!("{name}: {}", w.field);
    }
    if let Some(e) = &mut m.error {
        e.field = format!("{name}: {}", e.field);
    }
}

fn append(mut acc: OpenedModel, name: String, position: u64, mut m: Model) -> OpenedModel {
    prefix_findings(&mut m, &name);
    let begin = acc.tensors.len();
    acc.tensors.append(&mut m.tensors);
    let p = part(name.clone(), position, &m, begin..acc.tensors.len());
    acc.parts.push(p);
    acc.file_size = acc.file_size.saturating_add(m.file_size);
    acc.header_size = acc.header_size.saturating_add(m.header_size);
    acc.tensor_count = acc.tensor_count.saturating_add(m.tensor_count);
    acc.warnings.append(&mut m.warnings);
    if acc.error.is_none() {
        acc.error = m.error;
    }
    // PyTorch parts: their pickles (each named with its file) and storages, indexes shifted
    // to the merged table (storage offsets stay within their own part, as tensor offsets do).
    if let (Some(a), Some(b)) = (acc.archive_mut(), m.detail.take_archive()) {
        let shift = a.storages.len();
        a.storages.extend(b.storages);
        a.tensor_storage.resize(begin, None);
        a.tensor_storage
            .extend(b.tensor_storage.into_iter().map(|s| s.map(|i| i + shift)));
        a.strided
            .extend(b.strided.into_iter().map(|(i, st)| (i + begin, st)));
        a.not_in_place
            .extend(b.not_in_place.into_iter().map(|(i, why)| (i + begin, why)));
        a.deflated.extend(b.deflated.into_iter().map(|mut d| {
            d.tensor += begin;
            d
        }));
        a.skipped.extend(b.skipped);
        a.pickles.extend(b.pickles.into_iter().map(|mut p| {
            p.name = format!("{name}: {}", p.name);
            p
        }));
        a.unchecked.extend(b.unchecked.into_iter().map(|mut u| {
            u.name = format!("{name}: {}", u.name);
            u
        }));
    }
    acc
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
