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
    /// Compressed bytes read so far; the last chunk read, consumed up to `used`.
    read: u64,
    input: Vec<u8>,
    used: usize,
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
            used: 0,
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
    let (window, read) =
        inflate_range(src, member, plan.read_offset, plan.read_len, resume).await?;
    member.read = read;
    plan.inflate = Some(member);
    Ok(window)
}

/// Bytes `from..from + len` of `member` inflated, and the compressed bytes read for them
/// ([`inflate_window`]).
async fn inflate_range<S: ByteSource>(
    src: &mut S,
    member: Inflate,
    from: u64,
    len: u64,
    resume: &mut Option<Inflating>,
) -> Result<(Vec<u8>, u64), PreviewError> {
    let to = from.checked_add(len).ok_or(PreviewError::Overflow)?;
    let want = usize::try_from(len).map_err(|_| PreviewError::Overflow)?;
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
        // More: inflate the compressed bytes held, reading the next chunk when all are used.
        if z.ended {
            return Err(short(z.at));
        }
        let all_read = z.read >= z.compressed;
        if z.used >= z.input.len() && !all_read {
            let n = INFLATE_READ.min(z.compressed - z.read);
            let chunk = super::read_exact(src, z.start + z.read, n).await?;
            z.read += n;
            z.input = chunk;
            z.used = 0;
        }
        // With every compressed byte used the inflater may still hold output: it is called
        // with no input until it says the stream ended, or gives nothing more.
        let r = inflate(&mut z.state, &z.input[z.used..], &mut out, MZFlush::None);
        z.used += r.bytes_consumed;
        z.carry.extend_from_slice(&out[..r.bytes_written]);
        let starved = z.used >= z.input.len() && z.read >= z.compressed;
        let stuck = r.bytes_consumed == 0 && r.bytes_written == 0;
        match r.status {
            Ok(MZStatus::StreamEnd) => z.ended = true,
            Ok(_) | Err(MZError::Buf) if stuck && starved => return Err(short(z.at)),
            Ok(_) | Err(MZError::Buf) if stuck && z.used < z.input.len() => {
                return Err(bad("does not inflate (no progress)"))
            }
            Ok(_) | Err(MZError::Buf) => {}
            Err(e) => return Err(bad(&format!("does not inflate ({e:?})"))),
        }
    }
    let read = z.read - read_before;
    *resume = Some(z);
    Ok((window, read))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{block_on_ready, MemSource};

    fn member(data: &[u8]) -> (Vec<u8>, Inflate) {
        let z = miniz_oxide::deflate::compress_to_vec(data, 6);
        let m = Inflate {
            start: 0,
            compressed: z.len() as u64,
            read: 0,
        };
        (z, m)
    }

    fn range(
        z: &[u8],
        m: Inflate,
        from: u64,
        len: u64,
        resume: &mut Option<Inflating>,
    ) -> Result<Vec<u8>, PreviewError> {
        block_on_ready(inflate_range(&mut MemSource::new(z), m, from, len, resume)).map(|(w, _)| w)
    }

    #[test]
    fn members_whose_last_output_comes_after_the_last_input_inflate_whole() {
        // All-zero members just past 32 KiB multiples (and an .npy of 180 x 364 f32 zeros
        // behind its 128-byte header): the inflater still holds output once every
        // compressed byte is used.
        let mut sizes: Vec<usize> = (1..=4).map(|k| 131_072 + k).collect();
        sizes.extend((1..40).map(|k| k * 32_768 + 1 + k % 5));
        sizes.push(128 + 180 * 364 * 4);
        for n in sizes {
            let data = vec![0u8; n];
            let (z, m) = member(&data);
            let got = range(&z, m, 0, n as u64, &mut None).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(got.len(), n, "{n} bytes");
            assert!(got.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn windows_in_order_go_on_where_the_last_ended_and_others_start_again() {
        let data: Vec<u8> = (0..700_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 & 0x0F)
            .collect();
        let (z, m) = member(&data);
        let mut resume = None;
        let mut at = 0u64;
        // Adjacent, overlapping the end of the carried bytes, and after a gap.
        for (skip, len) in [
            (0, 1),
            (0, 70_000),
            (5, 3),
            (0, 65_536),
            (10_000, 200_000),
            (0, 1),
        ] {
            at += skip;
            let w = range(&z, m, at, len, &mut resume).unwrap();
            assert_eq!(w, data[at as usize..(at + len) as usize], "window at {at}");
            at += len;
        }
        // A window before where the inflater stopped inflates the member from its start.
        let w = range(&z, m, 100, 50, &mut resume).unwrap();
        assert_eq!(w, data[100..150]);
        // Past the member's end: an error, not a hang.
        assert!(range(&z, m, 699_990, 20, &mut resume).is_err());
        // A stream cut short: an error, not a hang.
        let cut = Inflate {
            compressed: m.compressed / 2,
            ..m
        };
        assert!(range(&z[..z.len() / 2], cut, 0, data.len() as u64, &mut None).is_err());
    }
}
