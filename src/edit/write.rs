//! Writing the new GGUF header: the original's pairs and tensor directory copied byte for byte
//! where unchanged, the edited pairs encoded in the file's byte order and widths, the counts
//! updated, and the padding to the data section recomputed for `general.alignment`.
//!
//! The output is `header` followed by the original file's bytes `data_offset..` (its data
//! section, unchanged). Tensor offsets are relative to the data section, so they stay valid as
//! long as each is a multiple of the alignment; an alignment edit that breaks that is refused.
//!
//! GGUF v2 and v3 share one layout and are written in their own version (a no-op edit gives
//! the same bytes). A v1 file (32-bit counts and lengths, which llama.cpp and gguf-py no longer
//! read) is written as v3: every length widened to 64 bits, every value and offset unchanged,
//! and the plan says so in [`Plan::notes`].

use super::spec::{infer, parse_value, Edit, NewValue};
use super::EditError;
use crate::format::cursor::{Cursor, Endian, Stop};
use crate::format::error::ErrorKind;
use crate::format::gguf::{align_up, GgufHeader, GgufParser, DEFAULT_ALIGNMENT, MAX_ALIGNMENT};
use crate::format::value::{read_value, Layout};
use crate::format::{model_from_gguf, Error, Model, Text, Value, ValueType};
use crate::text;

/// The key holding the data section's alignment.
pub const ALIGNMENT_KEY: &str = "general.alignment";

/// Array elements shown in a change's before/after text.
const SHOWN_ITEMS: u64 = 4;

/// Characters of a string shown in a change's before/after text.
const SHOWN_CHARS: usize = 80;

/// What an edit did to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// The key was not in the file.
    Added,
    /// The key was removed.
    Removed,
    /// The key's value (or type) changed.
    Changed,
    /// One element of the array changed (its index).
    Element(u64),
}

/// One change made, for the "what changed" list: the key and its value before and after, as
/// text (escaped, strings shortened to 80 characters, arrays to 4 elements).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The key (as stored; escape it for display).
    pub key: String,
    /// What happened.
    pub kind: ChangeKind,
    /// The type and value before (`None` when added).
    pub before: Option<String>,
    /// The type and value after (`None` when removed).
    pub after: Option<String>,
}

/// The new header and where the original's data section is.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The new header: magic, version, counts, pairs, tensor directory, padding.
    pub header: Vec<u8>,
    /// Offset in the original file where its data section starts: copy from here to the end.
    pub data_offset: u64,
    /// Bytes of the original's data section (to its end; 0 when it has none).
    pub data_len: u64,
    /// GGUF version written.
    pub version: u32,
    /// Data section alignment of the new file.
    pub alignment: u64,
    /// What the rewrite itself changed besides the edits (a v1 file written as v3).
    pub notes: Vec<String>,
    /// Every change made, in the order of the edits.
    pub changes: Vec<Change>,
}

impl Plan {
    /// Size of the new file: the header plus the original's data section.
    pub fn file_size(&self) -> u64 {
        (self.header.len() as u64).saturating_add(self.data_len)
    }
}

/// One pair of the new header: its key, type and encoded bytes (key length, key, type,
/// value), either a range of the original header or newly written.
#[derive(Debug, Clone)]
struct Item {
    key: String,
    ty: ValueType,
    body: Body,
}

#[derive(Debug, Clone)]
enum Body {
    /// Bytes `start..end` of the (v3-layout) original header.
    Orig(usize, usize),
    /// Newly encoded.
    New(Vec<u8>),
}

impl Item {
    fn bytes<'a>(&'a self, orig: &'a [u8]) -> &'a [u8] {
        match &self.body {
            Body::Orig(s, e) => &orig[*s..*e],
            Body::New(b) => b,
        }
    }
}

/// Parses the header held in `bytes` (the file's first bytes, at least its whole header).
fn parse(bytes: &[u8], file_size: u64) -> Result<GgufHeader, EditError> {
    let mut p = GgufParser::new();
    match p.step(bytes, file_size) {
        Ok(()) => Ok(p.into_header()),
        Err(Stop::Fail(e)) => Err(EditError::Unreadable(e)),
        Err(need) => Err(EditError::Unreadable(Error::new(
            "GGUF header",
            bytes.len() as u64,
            ErrorKind::Truncated {
                needed_end: need.needed_end().unwrap_or(u64::MAX),
                file_size: bytes.len() as u64,
            },
        ))),
    }
}

fn usize_of(x: u64) -> Result<usize, EditError> {
    usize::try_from(x).map_err(|_| EditError::Overflow {
        what: "a header offset",
    })
}

/// Builds the new header of the GGUF file whose first bytes are `bytes` (at least the whole
/// header; a [`Model`]'s `bytes` are) and whose size is `file_size`, with `edits` applied in
/// order. Errors name the key concerned.
pub fn plan(bytes: &[u8], file_size: u64, edits: &[Edit]) -> Result<Plan, EditError> {
    if bytes.get(..4) != Some(b"GGUF".as_slice()) {
        return Err(EditError::NotGguf);
    }
    let original = parse(bytes, file_size)?;
    let data_offset = original.data_offset;
    let data_len = file_size.saturating_sub(data_offset);
    // What follows the directory in the original: its padding (the vocab files written
    // without tensors end before the aligned data offset).
    let trailing = file_size.saturating_sub(original.directory_end);
    let mut notes = Vec::new();
    let converted;
    let (bytes, h) = if original.version == 1 {
        converted = to_v3(bytes, &original)?;
        notes.push(
            "GGUF v1 written as v3 (lengths and dimensions widened to 64 bits; llama.cpp and gguf-py no longer read v1)"
                .to_string(),
        );
        let size = (converted.len() as u64).saturating_add(data_len);
        let h = parse(&converted, size)?;
        (converted.as_slice(), h)
    } else {
        (bytes, original)
    };
    let layout = Layout {
        endian: if h.big_endian {
            Endian::Big
        } else {
            Endian::Little
        },
        len_width: 8,
    };
    let meta_end = h.tensors.first().map_or(h.directory_end, |t| t.info_offset);
    let mut items = Vec::with_capacity(h.metadata.len());
    for (i, e) in h.metadata.iter().enumerate() {
        let end = h.metadata.get(i + 1).map_or(meta_end, |n| n.offset);
        items.push(Item {
            key: e.key.clone(),
            ty: e.value.value_type(),
            body: Body::Orig(usize_of(e.offset)?, usize_of(end)?),
        });
    }
    let mut changes = Vec::with_capacity(edits.len());
    let mut alignment_touched = false;
    for edit in edits {
        alignment_touched |= edit.key() == ALIGNMENT_KEY;
        changes.push(apply(&mut items, bytes, layout, edit)?);
    }
    let alignment = if alignment_touched {
        new_alignment(&items, bytes, layout, &h)?
    } else {
        h.alignment
    };

    let mut out = Vec::new();
    out.extend_from_slice(&bytes[..16]); // magic, version, tensor count (unchanged)
    put_u64(&mut out, items.len() as u64, layout.endian);
    let items_len = items
        .iter()
        .try_fold(0usize, |n, i| n.checked_add(i.bytes(bytes).len()))
        .ok_or(EditError::Overflow {
            what: "header size",
        })?;
    let dir = &bytes[usize_of(meta_end)?..usize_of(h.directory_end)?];
    out.reserve(items_len.saturating_add(dir.len()).saturating_add(64));
    for i in &items {
        out.extend_from_slice(i.bytes(bytes));
    }
    out.extend_from_slice(dir);
    let dir_end = out.len() as u64;
    let aligned = align_up(dir_end, alignment).ok_or(EditError::Overflow {
        what: "the aligned data offset",
    })?;
    let mut pad = aligned - dir_end;
    if h.tensors.is_empty() && data_len == 0 {
        // No data section: keep as much padding as the original had (often none).
        pad = pad.min(trailing);
    }
    out.resize(out.len() + usize_of(pad)?, 0);
    Ok(Plan {
        header: out,
        data_offset,
        data_len,
        version: h.version,
        alignment,
        notes,
        changes,
    })
}

/// The new file's header as a [`Model`] (parsed from [`Plan::header`], the data section's
/// size from the plan), for the diff against the original and the checks of the result.
pub fn result_model(plan: &Plan) -> Model {
    let size = plan.file_size();
    let mut p = GgufParser::new();
    let error = match p.step(&plan.header, size) {
        Ok(()) => None,
        Err(Stop::Fail(e)) => Some(e),
        Err(need) => Some(Error::new(
            "GGUF header",
            plan.header.len() as u64,
            ErrorKind::Truncated {
                needed_end: need.needed_end().unwrap_or(u64::MAX),
                file_size: plan.header.len() as u64,
            },
        )),
    };
    model_from_gguf(p.into_header(), plan.header.clone(), size, error)
}

/// The type and value as a change shows them: `UINT32 2`, `STRING "…"`.
fn shown(v: &Value, bytes: &[u8]) -> String {
    format!(
        "{} {}",
        v.value_type().name(),
        text::value(v, bytes, SHOWN_ITEMS, SHOWN_CHARS)
    )
}

/// Decodes an item's value (its bytes hold key, type and value).
fn item_value(item: &Item, orig: &[u8], layout: Layout) -> Option<Value> {
    let b = item.bytes(orig);
    let mut c = Cursor::new(b, 0, layout.endian);
    let klen = c.u64().ok()?;
    c.skip(klen).ok()?;
    let ty = ValueType::from_id(c.u32().ok()?)?;
    read_value(&mut c, ty, layout, b.len() as u64, 0).ok()
}

/// An item's value as a change shows it; arrays are decoded from the item's own bytes.
fn item_shown(item: &Item, orig: &[u8], layout: Layout) -> String {
    let b = item.bytes(orig);
    match item_value(item, orig, layout) {
        Some(v) => shown(&v, b),
        None => item.ty.name().to_string(),
    }
}

fn apply(
    items: &mut Vec<Item>,
    orig: &[u8],
    layout: Layout,
    edit: &Edit,
) -> Result<Change, EditError> {
    let key = edit.key();
    let at = items.iter().position(|i| i.key == key);
    let missing = || EditError::NoSuchKey {
        key: key.to_string(),
    };
    match edit {
        Edit::Delete { .. } => {
            let i = at.ok_or_else(missing)?;
            let before = item_shown(&items[i], orig, layout);
            items.remove(i);
            Ok(Change {
                key: key.to_string(),
                kind: ChangeKind::Removed,
                before: Some(before),
                after: None,
            })
        }
        Edit::Set { ty, value, .. } => {
            let existing = at.map(|i| items[i].ty);
            let (ty, text) = match (ty, value, existing) {
                (_, NewValue::Verbatim(s), _) => (ValueType::String, s.clone()),
                (Some(t), NewValue::Text(s), _) => (*t, s.clone()),
                (None, NewValue::Text(s), Some(t)) => (t, s.clone()),
                (None, NewValue::Text(s), None) => infer(s),
            };
            let v = parse_value(key, ty, &text)?;
            let mut body = Vec::new();
            put_text(&mut body, key.as_bytes(), layout.endian);
            put_u32(&mut body, ty as u32, layout.endian);
            put_value(&mut body, &v, layout.endian);
            let after = shown(&v, &body);
            let item = Item {
                key: key.to_string(),
                ty,
                body: Body::New(body),
            };
            Ok(match at {
                Some(i) => {
                    let before = item_shown(&items[i], orig, layout);
                    items[i] = item;
                    Change {
                        key: key.to_string(),
                        kind: ChangeKind::Changed,
                        before: Some(before),
                        after: Some(after),
                    }
                }
                None => {
                    items.push(item);
                    Change {
                        key: key.to_string(),
                        kind: ChangeKind::Added,
                        before: None,
                        after: Some(after),
                    }
                }
            })
        }
        Edit::SetElement { index, value, .. } => {
            let i = at.ok_or_else(missing)?;
            let (body, before, after) = set_element(&items[i], orig, layout, *index, value)?;
            items[i].body = Body::New(body);
            Ok(Change {
                key: key.to_string(),
                kind: ChangeKind::Element(*index),
                before: Some(before),
                after: Some(after),
            })
        }
    }
}

/// Replaces element `index` of an array item: (new bytes, element before, element after).
fn set_element(
    item: &Item,
    orig: &[u8],
    layout: Layout,
    index: u64,
    value: &str,
) -> Result<(Vec<u8>, String, String), EditError> {
    let key = item.key.as_str();
    if item.ty != ValueType::Array {
        return Err(EditError::NotAnArray {
            key: key.to_string(),
            ty: item.ty,
        });
    }
    let b = item.bytes(orig);
    let size = b.len() as u64;
    let broken = || EditError::Overflow {
        what: "an array element's place",
    };
    let mut c = Cursor::new(b, 0, layout.endian);
    let klen = c.u64().map_err(|_| broken())?;
    c.skip(klen)
        .and_then(|()| c.skip(4))
        .map_err(|_| broken())?;
    let elem = c
        .u32()
        .ok()
        .and_then(ValueType::from_id)
        .ok_or_else(broken)?;
    let len = c.u64().map_err(|_| broken())?;
    if elem == ValueType::Array {
        return Err(EditError::NestedArray {
            key: key.to_string(),
        });
    }
    if index >= len {
        return Err(EditError::IndexOutOfRange {
            key: key.to_string(),
            index,
            len,
        });
    }
    let start = match elem.fixed_size() {
        Some(s) => index
            .checked_mul(s)
            .and_then(|o| o.checked_add(c.pos()))
            .ok_or_else(broken)?,
        None => {
            for _ in 0..index {
                let n = c.u64().map_err(|_| broken())?;
                c.skip(n).map_err(|_| broken())?;
            }
            c.pos()
        }
    };
    let mut at = Cursor::new(b, start, layout.endian);
    let old = read_value(&mut at, elem, layout, size, 1).map_err(|_| broken())?;
    let end = at.pos();
    let new = parse_value(&format!("{key}[{index}]"), elem, value)?;
    let mut out = Vec::with_capacity(b.len() + value.len());
    out.extend_from_slice(&b[..usize_of(start)?]);
    put_value(&mut out, &new, layout.endian);
    out.extend_from_slice(&b[usize_of(end)?..]);
    let before = format!("{} {}", elem.name(), text::scalar(&old));
    let after = format!("{} {}", elem.name(), text::scalar(&new));
    Ok((out, before, after))
}

/// The alignment the edited pairs give, checked: a UINT32 power of two up to
/// [`MAX_ALIGNMENT`] (llama.cpp reads `general.alignment` as a UINT32), the default 32 when
/// the key is gone, and every tensor offset a multiple of it.
fn new_alignment(
    items: &[Item],
    orig: &[u8],
    layout: Layout,
    h: &GgufHeader,
) -> Result<u64, EditError> {
    let bad = |why: String| EditError::BadAlignment {
        key: ALIGNMENT_KEY.to_string(),
        why,
    };
    let alignment = match items.iter().find(|i| i.key == ALIGNMENT_KEY) {
        None => DEFAULT_ALIGNMENT,
        Some(item) => {
            let v = item_value(item, orig, layout);
            let Some(Value::U32(a)) = v else {
                return Err(bad(format!(
                    "must be a UINT32 (llama.cpp reads it as one), not a {}",
                    item.ty.name()
                )));
            };
            let a = u64::from(a);
            if a == 0 || !a.is_power_of_two() || a > MAX_ALIGNMENT {
                return Err(bad(format!(
                    "{a} is not a power of two between 1 and {MAX_ALIGNMENT}"
                )));
            }
            a
        }
    };
    if let Some(t) = h.tensors.iter().find(|t| t.rel_offset % alignment != 0) {
        return Err(EditError::AlignmentBreaksOffsets {
            alignment,
            tensor: t.name.clone(),
            offset: t.rel_offset,
        });
    }
    Ok(alignment)
}

fn put_u32(out: &mut Vec<u8>, v: u32, e: Endian) {
    out.extend_from_slice(&match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    });
}

fn put_u64(out: &mut Vec<u8>, v: u64, e: Endian) {
    out.extend_from_slice(&match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    });
}

/// A GGUF v2/v3 string: 64-bit length, then the bytes.
fn put_text(out: &mut Vec<u8>, s: &[u8], e: Endian) {
    put_u64(out, s.len() as u64, e);
    out.extend_from_slice(s);
}

/// Encodes a scalar or string value (arrays are never built from text).
fn put_value(out: &mut Vec<u8>, v: &Value, e: Endian) {
    macro_rules! num {
        ($x:expr) => {
            out.extend_from_slice(&match e {
                Endian::Little => $x.to_le_bytes(),
                Endian::Big => $x.to_be_bytes(),
            })
        };
    }
    match v {
        Value::U8(x) => out.push(*x),
        Value::I8(x) => num!(x),
        Value::U16(x) => num!(x),
        Value::I16(x) => num!(x),
        Value::U32(x) => num!(x),
        Value::I32(x) => num!(x),
        Value::F32(x) => num!(x),
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::String(Text { text, .. }) => put_text(out, text.as_bytes(), e),
        Value::U64(x) => num!(x),
        Value::I64(x) => num!(x),
        Value::F64(x) => num!(x),
        // parse_value never makes one (ArrayValue); nothing to write.
        Value::Array(_) => {}
    }
}

/// Rewrites a v1 header (`bytes`, parsed as `h`) in the v3 layout: counts, key, string and
/// array lengths and tensor dimensions widened from 32 to 64 bits; everything else copied.
fn to_v3(bytes: &[u8], h: &GgufHeader) -> Result<Vec<u8>, EditError> {
    let e = if h.big_endian {
        Endian::Big
    } else {
        Endian::Little
    };
    let broken = |_| EditError::Overflow {
        what: "a v1 header being widened",
    };
    let mut out = Vec::with_capacity(bytes.len().saturating_add(bytes.len() / 2));
    out.extend_from_slice(b"GGUF");
    put_u32(&mut out, 3, e);
    put_u64(&mut out, h.tensor_count, e);
    put_u64(&mut out, h.kv_count, e);
    let mut c = Cursor::new(bytes, 16, e);
    for _ in &h.metadata {
        widen_text(&mut c, &mut out, e).map_err(broken)?;
        let ty = c.u32().map_err(broken)?;
        put_u32(&mut out, ty, e);
        widen_value(&mut c, &mut out, ty, e, 0).map_err(broken)?;
    }
    for t in &h.tensors {
        widen_text(&mut c, &mut out, e).map_err(broken)?;
        let n = c.u32().map_err(broken)?;
        put_u32(&mut out, n, e);
        for _ in 0..n {
            put_u64(&mut out, u64::from(c.u32().map_err(broken)?), e);
        }
        put_u32(&mut out, c.u32().map_err(broken)?, e);
        put_u64(&mut out, c.u64().map_err(broken)?, e);
        debug_assert_eq!(u64::from(n), t.shape.len() as u64);
    }
    Ok(out)
}

/// A v1 string (32-bit length) as a v3 one.
fn widen_text(
    c: &mut Cursor<'_>,
    out: &mut Vec<u8>,
    e: Endian,
) -> Result<(), crate::format::cursor::Short> {
    let n = c.u32()?;
    put_u64(out, u64::from(n), e);
    out.extend_from_slice(c.take(u64::from(n))?);
    Ok(())
}

/// A v1 value of type id `ty` as a v3 one (the parser already checked types and depth).
fn widen_value(
    c: &mut Cursor<'_>,
    out: &mut Vec<u8>,
    ty: u32,
    e: Endian,
    depth: u32,
) -> Result<(), crate::format::cursor::Short> {
    let t = ValueType::from_id(ty).unwrap_or(ValueType::U8);
    match t {
        ValueType::String => widen_text(c, out, e),
        ValueType::Array if depth < crate::format::value::MAX_ARRAY_DEPTH => {
            let elem = c.u32()?;
            let n = c.u32()?;
            put_u32(out, elem, e);
            put_u64(out, u64::from(n), e);
            let et = ValueType::from_id(elem).unwrap_or(ValueType::U8);
            match et.fixed_size() {
                Some(s) => out.extend_from_slice(c.take(u64::from(n) * s)?),
                None => {
                    for _ in 0..n {
                        widen_value(c, out, elem, e, depth + 1)?;
                    }
                }
            }
            Ok(())
        }
        ValueType::Array => Ok(()),
        other => {
            out.extend_from_slice(c.take(other.fixed_size().unwrap_or(1))?);
            Ok(())
        }
    }
}
