//! The window of an array inside a deflated zip member (`np.savez_compressed`): its compressed
//! bytes are read in chunks from the member's start and inflated as a stream, keeping only the
//! window's bytes, until the window's end; nothing after it is read. A reader of successive
//! windows in order (the scan's pieces) keeps the inflater between them ([`Inflating`]), so a
//! member is inflated once however many windows it is read in (not once per window).
//!
//! Memory: one compressed chunk ([`INFLATE_READ`]), one output buffer ([`INFLATE_OUT`]), the
//! inflater's state (its 32 KiB dictionary) and the window itself, whatever the member's size.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::plan::Inflate;
use super::{Plan, PreviewError};
use crate::source::ByteSource;

/// Compressed bytes read at a time: 256 KiB (one Range request each over HTTP; a
/// window near a member's start needs one, whatever the member's size).
pub const INFLATE_READ: u64 = 256 << 10;

/// Bytes inflated per call of the inflater before the window's part is kept: 64 KiB.
pub const INFLATE_OUT: usize = 64 << 10;

/// An inflater stopped where its last window ended, to go on from there: the member's
/// inflated bytes not handed out yet and its compressed bytes not consumed yet.
pub struct Inflating {
    /// The member (its compressed bytes' offset and size).
    start: u64,
    compressed: u64,
    state: Box<InflateState>,
    /// Member offset (inflated) of `carry[0]`.
    at: u64,
    /// Inflated bytes not handed out yet: member offsets `at..at + carry.len()`.
    carry: Vec<u8>,
    /// Compressed bytes read so far, and the part of the last chunk not consumed yet.
    read: u64,
    input: Vec<u8>,
    /// The deflate stream ended: nothing more comes.
    ended: bool,
}

impl std::fmt::Debug for Inflating {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflating")
            .field("start", &self.start)
            .field("at", &self.at)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Inflating {
    fn new(m: &Inflate) -> Inflating {
        Inflating {
            start: m.start,
            compressed: m.compressed,
            state: InflateState::new_boxed(DataFormat::Raw),
            at: 0,
            carry: Vec::new(),
            read: 0,
            input: Vec::new(),
            ended: false,
        }
    }

    /// Whether the window from member offset `from` of member `m` can go on from here.
    fn continues(&self, m: &Inflate, from: u64) -> bool {
        self.start == m.start && self.compressed == m.compressed && from >= self.at
    }
}

/// Inflates the member `plan.inflate` names up to the window's end (`plan.read_offset +
/// plan.read_len`, offsets in the member inflated) and returns the window's bytes; sets
/// `plan.inflate.read` to the compressed bytes read for it. `resume`: the inflater of the
/// window before, when this window starts at or after where that one ended (else the member
/// is inflated from its start); left where this window ends.
///
/// Errors: a read fails, the compressed bytes do not inflate, or the member ends before the
/// window does.
pub(super) async fn inflate_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
    resume: &mut Option<Inflating>,
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
    let mut z = match resume.take() {
        Some(z) if z.continues(&member, from) => z,
        _ => Inflating::new(&member),
    };
    let read_before = z.read;
    let mut out = vec![0u8; INFLATE_OUT];
    let bad = |why: &str| PreviewError::Read(format!("the deflated member {why}"));
    let short = |produced: u64| {
        bad(&format!(
            "ends after {produced} inflated bytes, before the window's end at byte {to}"
        ))
    };
    loop {
        // Hand out what is carried: drop what lies before the window, keep what lies in it.
        let carried_end = z.at + z.carry.len() as u64;
        if from > z.at {
            let skip = (from.min(carried_end) - z.at) as usize;
            z.carry.drain(..skip);
            z.at += skip as u64;
        }
        if z.at >= from && z.at < to && !z.carry.is_empty() {
            let take = ((to - z.at) as usize).min(z.carry.len());
            window.extend_from_slice(&z.carry[..take]);
            z.carry.drain(..take);
            z.at += take as u64;
        }
        if z.at >= to {
            break;
        }
        // More: inflate the compressed bytes held, reading the next chunk when none are.
        if z.ended {
            return Err(short(z.at));
        }
        if z.input.is_empty() {
            if z.read >= z.compressed {
                return Err(short(z.at));
            }
            let n = INFLATE_READ.min(z.compressed - z.read);
            let chunk = src
                .read(z.start + z.read, n)
                .await
                .map_err(|e| PreviewError::Read(e.to_string()))?;
            if chunk.len() as u64 != n {
                return Err(PreviewError::Read(format!(
                    "asked for {n} compressed bytes, got {}",
                    chunk.len()
                )));
            }
            z.read += n;
            z.input = chunk;
        }
        let r = inflate(&mut z.state, &z.input, &mut out, MZFlush::None);
        z.input.drain(..r.bytes_consumed);
        z.carry.extend_from_slice(&out[..r.bytes_written]);
        match r.status {
            Ok(MZStatus::StreamEnd) => {
                z.ended = true;
                z.input.clear();
            }
            Ok(_) => {}
            // Needs more input than is held: the next chunk.
            Err(MZError::Buf) if z.input.is_empty() => {}
            Err(MZError::Buf) if r.bytes_consumed == 0 && r.bytes_written == 0 => {
                return Err(bad("does not inflate (no progress)"))
            }
            Err(MZError::Buf) => {}
            Err(e) => return Err(bad(&format!("does not inflate ({e:?})"))),
        }
    }
    member.read = z.read - read_before;
    plan.inflate = Some(member);
    *resume = Some(z);
    Ok(window)
}
