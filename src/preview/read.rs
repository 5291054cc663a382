//! Reading a window's bytes: exactly the planned span (inflated for a deflated member), the
//! next window from where the last ended, a tensor's member located in its archive.

use super::*;

/// Reads the window's bytes: one `read` of exactly `plan.read_len` bytes at `plan.read_offset`
/// (none for an empty window); for a tensor in a deflated member, the member's compressed
/// bytes up to the window's end, inflated (`plan.inflate.read` then says how many were read).
/// Errors: the source failed or returned another length, or the length does not fit `usize`.
pub async fn read_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
) -> Result<Vec<u8>, PreviewError> {
    read_next_window(src, plan, &mut Carry::default()).await
}

/// What a reader of one tensor's windows in order keeps from one window to the next
/// ([`read_next_window`]): a deflated member's inflater where the last window ended; an ONNX
/// typed field's protobuf span, read once when it is at most [`CARRY_SPAN_BYTES`].
#[derive(Debug, Default)]
pub struct Carry {
    pub(super) inflating: Option<inflate::Inflating>,
    pub(super) span: Option<(crate::format::onnx::Encoded, Vec<u8>)>,
}

/// Largest ONNX typed-field span a [`Carry`] keeps between windows: 16 MiB (the scan's bound
/// on what it holds); a longer one is read again for each window.
pub const CARRY_SPAN_BYTES: u64 = 16 << 20;

/// [`read_window`] for the next of a tensor's windows, read in order (the scan's pieces):
/// a window in a deflated `.npz` member goes on inflating where the window before it, whose
/// [`Carry`] this is, ended — the member is inflated once, not once per window (a window that
/// starts before that point inflates the member from its start); an ONNX typed field's span
/// up to [`CARRY_SPAN_BYTES`] is read once for all its windows.
pub async fn read_next_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
    carry: &mut Carry,
) -> Result<Vec<u8>, PreviewError> {
    usize::try_from(plan.read_len).map_err(|_| PreviewError::Overflow)?;
    if let Some(mut g) = plan.gather.take_if(|_| plan.read_len > 0) {
        // A structured array's field: the whole elements covering the window, packed.
        let (from, len) = g.stored(plan.read_offset, plan.read_len)?;
        let raw = if plan.inflate.is_some() {
            let mut elements = plan.clone();
            elements.read_offset = from;
            elements.read_len = len;
            let raw = inflate::inflate_window(src, &mut elements, &mut None).await;
            plan.inflate = elements.inflate;
            raw
        } else {
            read_exact(src, from, len).await
        };
        g.read = len;
        let packed = raw.and_then(|raw| g.pack(&raw, plan.read_offset, plan.read_len));
        plan.gather = Some(g);
        return packed;
    }
    if plan.inflate.is_some() && plan.read_len > 0 {
        return inflate::inflate_window(src, plan, &mut carry.inflating).await;
    }
    if let Some(e) = plan.encoded.filter(|_| plan.read_len > 0) {
        if e.len > CARRY_SPAN_BYTES {
            return decode_window(src, plan, e).await;
        }
        let span = match carry.span.take() {
            Some((k, span)) if k == e => span,
            _ => read_span(src, e).await?,
        };
        let values = decode_span(&span, plan, e);
        carry.span = Some((e, span));
        return values;
    }
    if plan.read_len == 0 {
        // An empty window (a tensor with a zero dimension) reads nothing.
        return Ok(Vec::new());
    }
    read_exact(src, plan.read_offset, plan.read_len).await
}

/// Exactly `len` bytes at `offset` of `src`, or why not (past the end, a failed read, a short
/// answer).
pub(super) async fn read_exact<S: ByteSource>(
    src: &mut S,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, PreviewError> {
    let end = offset.checked_add(len).ok_or(PreviewError::Overflow)?;
    if end > src.size() {
        return Err(PreviewError::BeyondEnd {
            offset,
            bytes: len,
            file_size: src.size(),
        });
    }
    let bytes = src
        .read(offset, len)
        .await
        .map_err(|e| PreviewError::Read(e.to_string()))?;
    if bytes.len() as u64 != len {
        return Err(PreviewError::Read(format!(
            "asked for {len} bytes, got {}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The window of an ONNX tensor whose values are in a typed field: reads the field's span of
/// the protobuf (one read, at most [`MAX_READ_BYTES`]) and decodes the window's values
/// ([`crate::format::onnx::typed::decode`]).
pub(super) async fn decode_window<S: ByteSource>(
    src: &mut S,
    plan: &Plan,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    let span = read_span(src, e).await?;
    decode_span(&span, plan, e)
}

/// The protobuf span of an ONNX typed field ([`decode_window`]).
pub(super) async fn read_span<S: ByteSource>(
    src: &mut S,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    if e.len > MAX_READ_BYTES {
        return Err(PreviewError::Window(format!(
            "its values take {} bytes of the protobuf, more than one preview reads \
             ({MAX_READ_BYTES})",
            e.len
        )));
    }
    read_exact(src, e.start, e.len).await
}

/// The window's values decoded from the span `span` of its typed field.
pub(super) fn decode_span(
    span: &[u8],
    plan: &Plan,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    let keep = plan.read_offset..plan.read_offset.saturating_add(plan.read_len);
    crate::format::onnx::typed::decode(span, e.field, e.data_type, keep, e.values)
        .map_err(|why| PreviewError::Read(why.to_string()))
}

/// Moves `plan` to where its tensor's bytes really are, when the file's listing only predicted
/// that: a PyTorch zip member whose local header was not read (a remote archive lists its
/// tensors from the pickle and the central directory alone). Reads the member's local header
/// (one small read) and shifts the window by the difference. A plan of any other tensor is
/// returned as it is, without a read.
///
/// Errors: the header cannot be read, or is not a zip local header.
pub async fn locate<S: ByteSource>(
    model: &Model,
    src: &mut S,
    plan: Plan,
) -> Result<Plan, PreviewError> {
    let moved = member_data(model, src, plan.tensor_index).await?;
    relocate(plan, moved)
}

/// Where the data of tensor `index`'s zip member really starts, when the listing only
/// predicted it ([`locate`]): `Some((predicted, real))` after one small read of the member's
/// local header; `None` without a read for every other tensor. A caller planning many windows
/// of one tensor (the scan) reads it once and [`relocate`]s each plan.
///
/// Errors: the header cannot be read, or is not a zip local header.
pub async fn member_data<S: ByteSource>(
    model: &Model,
    src: &mut S,
    index: usize,
) -> Result<Option<(u64, u64)>, PreviewError> {
    let Some(a) = model.archive() else {
        return Ok(None);
    };
    let Some(s) = a
        .tensor_storage
        .get(index)
        .copied()
        .flatten()
        .and_then(|i| a.storages.get(i))
        .filter(|s| !s.verified)
    else {
        return Ok(None);
    };
    use crate::format::zip;
    let len =
        (zip::LOCAL_LEN + s.member.len() as u64 + 256).min(src.size().saturating_sub(s.header));
    let head = src
        .read(s.header, len)
        .await
        .map_err(|e| PreviewError::Read(e.to_string()))?;
    let entry = zip::Entry {
        name: s.member.clone(),
        method: zip::METHOD_STORED,
        flags: 0,
        crc32: 0,
        compressed: s.bytes,
        size: s.bytes,
        local_header: s.header,
        central_offset: 0,
    };
    let real = match zip::data_offset(&head, &entry, src.size()) {
        Ok(d) => d,
        Err(zip::Stop::Fail(e)) => return Err(PreviewError::Read(e.to_string())),
        Err(_) => {
            return Err(PreviewError::Read(format!(
                "the local header of {} at byte {} is longer than expected",
                s.member, s.header
            )))
        }
    };
    Ok(Some((s.data, real)))
}

/// `plan` moved from a member's predicted data offset to its real one ([`member_data`]);
/// unchanged for `None`.
pub fn relocate(mut plan: Plan, moved: Option<(u64, u64)>) -> Result<Plan, PreviewError> {
    if let Some((predicted, real)) = moved {
        plan.read_offset = plan
            .read_offset
            .checked_sub(predicted)
            .and_then(|rel| real.checked_add(rel))
            .ok_or(PreviewError::Overflow)?;
    }
    Ok(plan)
}
