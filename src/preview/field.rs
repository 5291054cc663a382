//! One field of a NumPy structured array, previewed as an array of its own (numpy's
//! `arr['x']`): its shape is the array's followed by the field's subarray shape, its dtype the
//! field's. Its bytes are `width` bytes at `offset` in each `item`-byte element: a window of
//! the field is read as the run of whole elements covering it (one read, or one inflation of a
//! deflated member) and gathered into the field's own contiguous bytes, which then decode as
//! any tensor's.

use crate::format::numpy::{descr_dtype, Structured};
use crate::format::{element_count, DType, Model, Tensor};

use super::PreviewError;

/// Where a structured array's field lies in its elements, and what was read for a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Gather {
    /// The field's name (`outer.inner` for a nested one).
    pub field: String,
    /// The field seen as a tensor: the array's name and shape followed by the field's
    /// subarray shape, the field's dtype, its bytes packed (`elements × its size`).
    pub view: Tensor,
    /// Offset of the array's first element in the bytes read from: the file (absolute) or,
    /// for a deflated `.npz` member, the member inflated.
    pub base: u64,
    /// Bytes of one element.
    pub item: u64,
    /// Offset of the field's first byte in an element.
    pub offset: u64,
    /// The field's bytes in one element (its dtype's size × its subarray's values).
    pub width: u64,
    /// Bytes of elements read for the window (set by [`super::read_window`]).
    pub read: u64,
}

impl Gather {
    /// The elements covering the field's packed bytes `from..from + len`: their first and
    /// their end (exclusive).
    pub fn elements(&self, from: u64, len: u64) -> Result<(u64, u64), PreviewError> {
        if self.width == 0 {
            return Ok((0, 0));
        }
        let end = from.checked_add(len).ok_or(PreviewError::Overflow)?;
        Ok((from / self.width, end.div_ceil(self.width)))
    }

    /// The stored byte range (offset from the start of what is read, length) holding the
    /// elements that cover the field's packed bytes `from..from + len`.
    pub fn stored(&self, from: u64, len: u64) -> Result<(u64, u64), PreviewError> {
        let (e0, e1) = self.elements(from, len)?;
        let at = e0
            .checked_mul(self.item)
            .and_then(|o| o.checked_add(self.base))
            .ok_or(PreviewError::Overflow)?;
        let n = (e1 - e0)
            .checked_mul(self.item)
            .ok_or(PreviewError::Overflow)?;
        Ok((at, n))
    }

    /// The field's packed bytes `from..from + len` out of `raw`, the whole elements
    /// [`Gather::stored`] names.
    pub fn pack(&self, raw: &[u8], from: u64, len: u64) -> Result<Vec<u8>, PreviewError> {
        let (e0, e1) = self.elements(from, len)?;
        let (item, offset, width) = (
            to_usize(self.item)?,
            to_usize(self.offset)?,
            to_usize(self.width)?,
        );
        let n = to_usize(e1 - e0)?;
        if raw.len() != n.checked_mul(item).ok_or(PreviewError::Overflow)? {
            return Err(PreviewError::Read(format!(
                "got {} bytes for {n} elements of {item} bytes",
                raw.len()
            )));
        }
        let mut packed = Vec::new();
        packed
            .try_reserve_exact(n.checked_mul(width).ok_or(PreviewError::Overflow)?)
            .map_err(|_| PreviewError::Overflow)?;
        for e in raw.chunks_exact(item.max(1)).take(n) {
            packed
                .extend_from_slice(e.get(offset..offset + width).ok_or_else(|| {
                    PreviewError::Read("a field lies outside its element".into())
                })?);
        }
        // Trim to the window: from its first byte in the first element to its last.
        let skip = to_usize(from - e0 * self.width)?;
        let keep = to_usize(len)?;
        packed
            .get(skip..skip + keep)
            .map(<[u8]>::to_vec)
            .ok_or(PreviewError::Overflow)
    }
}

fn to_usize(n: u64) -> Result<usize, PreviewError> {
    usize::try_from(n).map_err(|_| PreviewError::Overflow)
}

/// The structured layout of tensor `index`, if it is a NumPy structured array.
pub fn structured(model: &Model, index: usize) -> Option<&Structured> {
    model
        .archive()
        .and_then(|a| a.structured.iter().find(|s| s.tensor == index))
}

/// The field a structured array `index` previews when none is asked for: its first one this
/// tool decodes (`None`: not a structured array, or no field decodes).
pub fn default_field(model: &Model, index: usize) -> Option<&str> {
    structured(model, index)?
        .fields
        .iter()
        .find(|f| field_view(model, index, &f.name).is_ok())
        .map(|f| f.name.as_str())
}

/// The field `name` of structured array `index` as a tensor of its own, and where its bytes
/// lie in each element (`base` 0: [`super::plan()`] sets it).
///
/// Errors: the tensor is not a structured array, has no such field, or the field's dtype is
/// one this tool does not decode (text, dates, big-endian, objects), or its sizes overflow.
pub fn field_view(model: &Model, index: usize, name: &str) -> Result<Gather, PreviewError> {
    let t = model
        .tensors
        .get(index)
        .ok_or_else(|| PreviewError::NoTensor(format!("#{index}")))?;
    let Some(s) = structured(model, index) else {
        return Err(PreviewError::Shape(format!(
            "\"{}\" is not a NumPy structured array: it has no fields to choose from",
            crate::text::escape(&t.name)
        )));
    };
    let Some(f) = s.field(name) else {
        return Err(PreviewError::Shape(format!(
            "the structured array has no field \"{}\"; its fields are {}",
            crate::text::escape(name),
            s.names(12)
        )));
    };
    let (dtype, _) = descr_dtype(&f.descr);
    if let DType::StUnknown(_) = dtype {
        return Err(PreviewError::Shape(format!(
            "field \"{}\" is NumPy dtype {}: {}, listed but not previewed by this tool",
            f.name,
            f.descr,
            crate::format::numpy::dtype_words(&f.descr)
        )));
    }
    let size = crate::format::numpy::header::item_size(&f.descr).ok_or(PreviewError::Overflow)?;
    let per = element_count(&f.shape).ok_or(PreviewError::Overflow)?;
    let width = size.checked_mul(per).ok_or(PreviewError::Overflow)?;
    if f.offset.checked_add(width).is_none_or(|e| e > s.item) {
        return Err(PreviewError::Shape(format!(
            "field \"{}\" ({width} bytes at byte {}) does not fit its {}-byte element",
            f.name, f.offset, s.item
        )));
    }
    let mut shape = t.shape.clone();
    shape.extend_from_slice(&f.shape);
    let elements = element_count(&shape);
    let view = Tensor {
        name: t.name.clone(),
        dtype,
        shape,
        offset: t.offset,
        elements,
        bytes: elements.and_then(|n| n.checked_mul(size)),
        note: None,
    };
    Ok(Gather {
        field: f.name.clone(),
        view,
        base: 0,
        item: s.item,
        offset: f.offset,
        width,
        read: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gather(item: u64, offset: u64, width: u64) -> Gather {
        Gather {
            field: "x".into(),
            view: Tensor {
                name: "a".into(),
                dtype: DType::StUnknown(String::new()),
                shape: vec![],
                offset: 0,
                elements: None,
                bytes: None,
                note: None,
            },
            base: 100,
            item,
            offset,
            width,
            read: 0,
        }
    }

    #[test]
    fn a_window_reads_the_whole_elements_covering_it_and_keeps_its_bytes() {
        // Elements of 6 bytes: a 2-byte field at 1 holding two 1-byte values.
        let g = gather(6, 1, 2);
        let raw: Vec<u8> = (0u8..30).collect(); // 5 elements
                                                // Packed bytes 3..7: element 1's second byte through element 3's first.
        assert_eq!(g.elements(3, 4).unwrap(), (1, 4));
        assert_eq!(g.stored(3, 4).unwrap(), (106, 18));
        let out = g.pack(&raw[6..24], 3, 4).unwrap();
        // Element k's field is raw[6k+1], raw[6k+2].
        assert_eq!(out, vec![8, 13, 14, 19]);
        assert!(g.pack(&raw[6..23], 3, 4).is_err());
    }
}
