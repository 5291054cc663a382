//! The window of an array inside a deflated zip member (`np.savez_compressed`): its compressed
//! bytes are read in chunks from the member's start and inflated as a stream, keeping only the
//! window's bytes, until the window's end; nothing after it is read.
//!
//! Memory: one compressed chunk ([`INFLATE_READ`]), one output buffer ([`INFLATE_OUT`]), the
//! inflater's state (its 32 KiB dictionary) and the window itself, whatever the member's size.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::{Plan, PreviewError};
use crate::source::ByteSource;

/// Compressed bytes read at a time: 256 KiB (one Range request each over HTTP; a
/// window near a member's start needs one, whatever the member's size).
pub const INFLATE_READ: u64 = 256 << 10;

/// Bytes inflated per call of the inflater before the window's part is kept: 64 KiB.
pub const INFLATE_OUT: usize = 64 << 10;

/// Inflates the member `plan.inflate` names up to the window's end (`plan.read_offset +
/// plan.read_len`, offsets in the member inflated) and returns the window's bytes; sets
/// `plan.inflate.read` to the compressed bytes read.
///
/// Errors: a read fails, the compressed bytes do not inflate, or the member ends before the
/// window does.
pub(super) async fn inflate_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
) -> Result<Vec<u8>, PreviewError> {
    let Some(mut member) = plan.inflate else {
        return Err(PreviewError::Overflow);
    };
    let from = plan.read_offset;
    let to = from
        .checked_add(plan.read_len)
        .ok_or(PreviewError::Overflow)?;
    let want = usize::try_from(plan.read_len).map_err(|_| PreviewError::Overflow)?;
    let end = member
        .start
        .checked_add(member.compressed)
        .ok_or(PreviewError::Overflow)?;
    if end > src.size() {
        return Err(PreviewError::BeyondEnd {
            offset: member.start,
            bytes: member.compressed,
            file_size: src.size(),
        });
    }
    let mut window = Vec::new();
    window
        .try_reserve_exact(want)
        .map_err(|_| PreviewError::Overflow)?;
    let mut state = InflateState::new_boxed(DataFormat::Raw);
    let mut out = vec![0u8; INFLATE_OUT];
    // Bytes inflated so far (the member's offset of `out`'s next byte).
    let mut produced = 0u64;
    let mut read = 0u64;
    let bad = |why: &str| PreviewError::Read(format!("the deflated member {why}"));
    while produced < to {
        if read >= member.compressed {
            return Err(bad(&format!(
                "ends after {produced} inflated bytes, before the window's end at byte {to}"
            )));
        }
        let n = INFLATE_READ.min(member.compressed - read);
        let chunk = src
            .read(member.start + read, n)
            .await
            .map_err(|e| PreviewError::Read(e.to_string()))?;
        if chunk.len() as u64 != n {
            return Err(PreviewError::Read(format!(
                "asked for {n} compressed bytes, got {}",
                chunk.len()
            )));
        }
        read += n;
        let mut input = &chunk[..];
        loop {
            let r = inflate(&mut state, input, &mut out, MZFlush::None);
            input = &input[r.bytes_consumed..];
            let w = r.bytes_written as u64;
            // Keep the part of out[..w] (member bytes produced..produced + w) in the window.
            let (lo, hi) = (from.max(produced), to.min(produced + w));
            if lo < hi {
                window.extend_from_slice(&out[(lo - produced) as usize..(hi - produced) as usize]);
            }
            produced += w;
            match r.status {
                _ if produced >= to => break,
                Ok(MZStatus::StreamEnd) => {
                    return Err(bad(&format!(
                        "ends after {produced} inflated bytes, before the window's end at \
                         byte {to}"
                    )))
                }
                Ok(_) if input.is_empty() && w < out.len() as u64 => break,
                Ok(_) => {}
                // Needs more input than this chunk holds.
                Err(MZError::Buf) if input.is_empty() => break,
                Err(e) => return Err(bad(&format!("does not inflate ({e:?})"))),
            }
        }
    }
    member.read = read;
    plan.inflate = Some(member);
    Ok(window)
}
